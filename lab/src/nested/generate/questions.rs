//! The questions of a generated story: one per order, about a random chain of agents
//! (no agent twice in a row) and a random object, answered by the simulated minds.

use bip_episodes::{
    AgentId, Expected, FurnitureId, NestedClaim, ObjectId, QuestionLabel, Story, StoryOption,
    StoryQuestion,
};

use crate::rng::Rng;

use super::minds::{true_belief, Decisions};

/// Draws per order before the order is left out.
const DRAWS: usize = 40;

/// One question per order 0..=`max_order`, every container an option, in random order.
pub(super) fn questions(
    story: &Story,
    decisions: &Decisions,
    max_order: usize,
    rng: &mut Rng,
) -> Vec<StoryQuestion> {
    let agents = story.agents().len();
    let objects = story.world().objects.len();
    let mut out = Vec::new();
    for order in 0..=max_order {
        if order > 1 && agents < 2 {
            break;
        }
        for _ in 0..DRAWS {
            let mut of: Vec<AgentId> = Vec::with_capacity(order);
            while of.len() < order {
                let a = AgentId::new(rng.below(agents));
                if of.last() != Some(&a) {
                    of.push(a);
                }
            }
            let object = ObjectId::new(rng.below(objects));
            if let Some(truth) = true_belief(story, decisions, &of, object) {
                out.push(question(story, of, object, truth, out.len(), rng));
                break;
            }
        }
    }
    out
}

fn question(
    story: &Story,
    of: Vec<AgentId>,
    object: ObjectId,
    truth: FurnitureId,
    index: usize,
    rng: &mut Rng,
) -> StoryQuestion {
    let world = story.world();
    let mut places: Vec<FurnitureId> = world.furniture_ids().collect();
    rng.shuffle(&mut places);
    let expected = places
        .iter()
        .position(|&p| p == truth)
        .map(Expected::Option);
    let object_name = &world.object(object).name;
    let text = if of.is_empty() {
        format!("Where is the {object_name} really?")
    } else {
        let mut text = format!("Where does {} think", story.agent_name(of[0]));
        for &a in &of[1..] {
            text.push_str(&format!(" {} thinks", story.agent_name(a)));
        }
        format!("{text} the {object_name} is?")
    };
    StoryQuestion {
        id: format!("q{}", index + 1),
        label: Some(QuestionLabel::parse(&format!("order {}", of.len()))),
        text: Some(text),
        at: story.events().len(),
        options: places
            .iter()
            .map(|&place| StoryOption {
                text: Some(world.furniture(place).name.clone()),
                claim: NestedClaim {
                    of: of.clone(),
                    object,
                    place,
                    inside: true,
                },
            })
            .collect(),
        expected,
    }
}
