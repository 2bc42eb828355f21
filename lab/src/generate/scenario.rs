//! Scenarios for each question type: who wants what, what it thinks, what it does, and
//! the question asked, with its ground truth taken from the simulated agent itself.

use bip_episodes::{
    Action, AnswerOption, Claim, ClassId, Expected, FurnitureId, FurnitureKind, ObjectId,
    Observation, Proposition, Question, QuestionType, RoomId, State, World,
};

use super::agent::{simulate, Trajectory};
use crate::rng::Rng;
use bip_engine::Belief;
use bip_engine::PlannerPolicy;

/// Fixed inputs of scenario building.
pub struct Setting<'a> {
    /// The world.
    pub world: &'a World,
    /// The simulated agent's planner.
    pub policy: &'a PlannerPolicy,
    /// Leak of the agent's starting belief.
    pub leak: f64,
    /// Longest trajectory simulated.
    pub max_steps: usize,
    /// The agent's name, for question wording.
    pub agent: &'a str,
    /// Whether the agent has seen, before the episode, what lies on every surface (its
    /// belief starts knowing those places).
    pub knows_the_open: bool,
    /// Whether the agent wants the class the world names and the house lacks.
    pub wants_the_lacking_class: bool,
}

/// A built scenario.
pub struct Scenario {
    /// Where the agent starts.
    pub start: RoomId,
    /// What it wants.
    pub goal: ClassId,
    /// Where it thought an object of its goal class was.
    pub believed: FurnitureId,
    /// The actions up to the question.
    pub actions: Vec<Action>,
    /// The states before and after each of `actions`.
    pub states: Vec<State>,
    /// The agent's belief at each of `states` (what it acted on next).
    pub beliefs: Vec<Belief>,
    /// The question, asked after all of `actions`.
    pub question: Question,
}

/// Builds a scenario of `kind`, or `None` if this world and draw cannot host one (the
/// caller draws again).
pub fn build(kind: QuestionType, setting: &Setting<'_>, rng: &mut Rng) -> Option<Scenario> {
    let world = setting.world;
    let start = RoomId::new(rng.below(world.rooms.len()));
    let goal = ClassId::new(rng.below(world.classes.len()));
    let goal = match lacking_class(world) {
        Some(lacking) if setting.wants_the_lacking_class => lacking,
        _ => goal,
    };
    let holding = containers(world, |f| starts_with(world, f, goal));
    let lacking = containers(world, |f| !starts_with(world, f, goal));
    let decoys;
    // Where the agent first thinks an object of its goal class is: for a class the house
    // lacks, somewhere it is not, whatever the question type.
    let candidates = match kind {
        _ if holding.is_empty() && setting.wants_the_lacking_class => &lacking,
        QuestionType::TrueBeliefShort
        | QuestionType::GoalTrueBelief
        | QuestionType::GoalFutureActions => &holding,
        QuestionType::FalseBeliefShort
        | QuestionType::BeliefTracking
        | QuestionType::GoalFalseBelief => &lacking,
        QuestionType::GoalUpdatedBelief => {
            decoys = containers(world, |f| {
                !starts_with(world, f, goal) && world.objects.iter().any(|o| o.start == f)
            });
            &decoys
        }
    };
    let believed = *rng.pick(candidates)?;
    let run = run(setting, start, goal, believed, rng);
    let draft = Draft {
        kind,
        setting,
        goal,
        believed,
        holding: &holding,
        run: &run,
    };
    let (at, question) = match kind {
        QuestionType::TrueBeliefShort | QuestionType::FalseBeliefShort => {
            short_belief(&draft, rng)?
        }
        QuestionType::BeliefTracking => belief_tracking(&draft, rng)?,
        QuestionType::GoalTrueBelief => goal_true_belief(&draft, rng)?,
        QuestionType::GoalFalseBelief | QuestionType::GoalFutureActions => {
            goal_seen_distractor(&draft, rng)?
        }
        QuestionType::GoalUpdatedBelief => goal_updated_belief(&draft, rng)?,
    };
    Some(scenario(start, goal, believed, &run, at, question))
}

/// A scenario under way: the question type and setting, what the agent wants, where it
/// first thought one was, the containers that truly held one, and what it then did.
struct Draft<'a> {
    kind: QuestionType,
    setting: &'a Setting<'a>,
    goal: ClassId,
    believed: FurnitureId,
    holding: &'a [FurnitureId],
    run: &'a Trajectory,
}

impl Draft<'_> {
    /// The step at which the agent opened the container it believed in.
    fn opened(&self) -> Option<usize> {
        let open = Action::Open(self.believed);
        self.run.actions.iter().position(|a| *a == open)
    }

    /// The belief question about `place` asked after `at` actions, answered by the
    /// agent's belief then ([`belief_question`]), with `at`.
    fn belief_question_at(
        &self,
        at: usize,
        place: FurnitureId,
        inside: bool,
        rng: &mut Rng,
    ) -> Option<(usize, Question)> {
        let belief = &self.run.beliefs[at];
        let question = belief_question(
            self.setting,
            self.goal,
            place,
            belief,
            inside,
            self.kind,
            rng,
        )?;
        Some((at, question))
    }
}

/// True or false belief, short term (1.1, 1.2): is an object of the goal class inside a
/// container, asked when the agent arrives at the one it believed in.
fn short_belief(draft: &Draft<'_>, rng: &mut Rng) -> Option<(usize, Question)> {
    let kind = draft.kind;
    let (world, believed, run) = (draft.setting.world, draft.believed, draft.run);
    let at = arrival(run, believed)?;
    let inside = rng.chance(0.5);
    let place = if inside {
        believed
    } else {
        // The false-belief case asks about where the object really is when it can.
        let real: Vec<FurnitureId> = draft
            .holding
            .iter()
            .copied()
            .filter(|f| *f != believed)
            .collect();
        let others: Vec<FurnitureId> = containers(world, |f| f != believed);
        let truly = kind == QuestionType::TrueBeliefShort;
        *rng.pick(if !truly && !real.is_empty() {
            &real
        } else {
            &others
        })?
    };
    draft.belief_question_at(at, place, inside, rng)
}

/// Belief tracking (1.3): after the agent opened the container it believed in and found
/// no object of its goal class, where does it think one is now.
fn belief_tracking(draft: &Draft<'_>, rng: &mut Rng) -> Option<(usize, Question)> {
    let (world, believed, run) = (draft.setting.world, draft.believed, draft.run);
    let opened = draft.opened()?;
    let last = run
        .actions
        .len()
        .checked_sub(1)
        .filter(|_| run.reached_goal)?;
    let inside = rng.chance(0.5);
    let (at, place) = if inside {
        let at = (opened + 1..=last).find(|&k| !run.beliefs[k].known().is_empty())?;
        (at, run.beliefs[at].known()[0])
    } else {
        let at = rng.range(opened + 1, last.max(opened + 1));
        let room = run.states[at].room;
        let unopened: Vec<FurnitureId> = containers(world, |f| {
            world.furniture(f).room == room && !run.actions[..at].contains(&Action::Open(f))
        });
        let place = match rng.pick(&unopened) {
            Some(f) if rng.chance(0.5) => *f,
            _ => believed,
        };
        (at, place)
    };
    draft.belief_question_at(at, place, inside, rng)
}

/// Goal given a true belief (2.1): the goal against a class the agent has not seen, on
/// arrival at the container it believed in, under a belief about that class.
fn goal_true_belief(draft: &Draft<'_>, rng: &mut Rng) -> Option<(usize, Question)> {
    let (kind, setting, goal) = (draft.kind, draft.setting, draft.goal);
    let (world, believed, run) = (setting.world, draft.believed, draft.run);
    let at = arrival(run, believed)?;
    // A condition on a class the agent has seen would contradict what it knows.
    let seen = seen_classes(world, run, 0..at + 1);
    let unseen: Vec<ClassId> = world
        .class_ids()
        .filter(|c| *c != goal && !seen.contains(c))
        .collect();
    let distractor = distractor(world, goal, &unseen, rng)?;
    let condition = if rng.chance(0.5) {
        (believed, false)
    } else {
        let elsewhere = containers(world, |f| {
            f != believed && !run.actions[..at].contains(&Action::Open(f))
        });
        (*rng.pick(&elsewhere)?, true)
    };
    let given = Proposition::Belief {
        class: distractor,
        place: condition.0,
        inside: condition.1,
    };
    let question = goal_question(setting, goal, distractor, Some(given), kind, rng);
    Some((at, question))
}

/// Goal given a false belief or future actions (2.2, 2.4): the goal against a class the
/// agent saw in plain view and walked away from.
fn goal_seen_distractor(draft: &Draft<'_>, rng: &mut Rng) -> Option<(usize, Question)> {
    let (kind, setting, goal) = (draft.kind, draft.setting, draft.goal);
    let (world, believed, run) = (setting.world, draft.believed, draft.run);
    let at = arrival(run, believed)?;
    // At the start for a false belief, on the way for future actions.
    let first_step = usize::from(kind == QuestionType::GoalFutureActions);
    let seen: Vec<ClassId> = seen_classes(world, run, first_step..at)
        .into_iter()
        .filter(|c| *c != goal && !starts_with(world, believed, *c))
        .collect();
    let distractor = distractor(world, goal, &seen, rng)?;
    let question = goal_question(setting, goal, distractor, None, kind, rng);
    Some((at, question))
}

/// Goal given an updated belief (2.3): the goal against a class the agent found in the
/// decoy container it opened, and left there.
fn goal_updated_belief(draft: &Draft<'_>, rng: &mut Rng) -> Option<(usize, Question)> {
    let (kind, setting, goal) = (draft.kind, draft.setting, draft.goal);
    let (world, believed, run) = (setting.world, draft.believed, draft.run);
    let opened = draft.opened()?;
    let last = run.actions.len().checked_sub(1)?;
    let at = rng.range(opened + 2, last.max(opened + 2));
    if at > last {
        return None;
    }
    let mut inside: Vec<ClassId> = world
        .objects
        .iter()
        .filter(|o| o.start == believed && o.class != goal)
        .map(|o| o.class)
        .collect();
    inside.sort_unstable();
    inside.dedup();
    let distractor = distractor(world, goal, &inside, rng)?;
    let untouched = run.states[at]
        .held()
        .all(|o| world.object(o).class != distractor);
    if !untouched {
        return None;
    }
    let question = goal_question(setting, goal, distractor, None, kind, rng);
    Some((at, question))
}

/// The distractor of a goal question about `goal`: a pick of `candidates` (`None` when
/// there are none), or, in a world that names a class the house lacks, that class unless
/// it is the goal.
fn distractor(
    world: &World,
    goal: ClassId,
    candidates: &[ClassId],
    rng: &mut Rng,
) -> Option<ClassId> {
    let picked = *rng.pick(candidates)?;
    let lacking = lacking_class(world).filter(|&c| c != goal);
    Some(lacking.unwrap_or(picked))
}

/// The class the world names that none of its objects has, if any.
fn lacking_class(world: &World) -> Option<ClassId> {
    world
        .class_ids()
        .find(|&c| !world.objects.iter().any(|o| o.class == c))
}

fn run(
    setting: &Setting<'_>,
    start: RoomId,
    goal: ClassId,
    believed: FurnitureId,
    rng: &mut Rng,
) -> Trajectory {
    let world = setting.world;
    let mut belief = Belief::thinks_at(believed, world.furniture.len(), setting.leak);
    if setting.knows_the_open {
        belief.observe(world, goal, &in_the_open(world, start));
    }
    let state = State::initial(world, start);
    simulate(
        world,
        setting.policy,
        state,
        goal,
        belief,
        setting.max_steps,
        rng,
    )
}

/// What lies on every surface of the house, as if the agent had looked at each.
fn in_the_open(world: &World, room: RoomId) -> Observation {
    let visible: Vec<FurnitureId> = world
        .furniture_ids()
        .filter(|&f| world.furniture(f).kind == FurnitureKind::Surface)
        .collect();
    let seen = world
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| visible.contains(&o.start))
        .map(|(i, o)| (ObjectId::new(i), o.start))
        .collect();
    Observation {
        room,
        visible,
        seen,
    }
}

fn scenario(
    start: RoomId,
    goal: ClassId,
    believed: FurnitureId,
    run: &Trajectory,
    at: usize,
    question: Question,
) -> Scenario {
    Scenario {
        start,
        goal,
        believed,
        actions: run.actions[..at].to_vec(),
        states: run.states[..=at].to_vec(),
        beliefs: run.beliefs[..=at].to_vec(),
        question,
    }
}

/// Containers satisfying `keep`, in id order.
pub(super) fn containers(world: &World, keep: impl Fn(FurnitureId) -> bool) -> Vec<FurnitureId> {
    world
        .furniture_ids()
        .filter(|f| world.furniture(*f).kind == FurnitureKind::Container && keep(*f))
        .collect()
}

/// Whether an object of `class` starts at `place`.
fn starts_with(world: &World, place: FurnitureId, class: ClassId) -> bool {
    world
        .objects
        .iter()
        .any(|o| o.start == place && o.class == class)
}

/// The first step at which the agent stands at `place`, still closed, after walking there.
fn arrival(run: &Trajectory, place: FurnitureId) -> Option<usize> {
    (1..run.states.len())
        .find(|&k| run.states[k].at == Some(place) && !run.states[k].open[place.index()])
}

/// Classes the agent saw an object of in the states of `steps`, sorted.
fn seen_classes(world: &World, run: &Trajectory, steps: std::ops::Range<usize>) -> Vec<ClassId> {
    let mut seen: Vec<ClassId> = steps
        .flat_map(|k| run.states[k].observe(world).seen)
        .map(|(o, _)| world.object(o).class)
        .collect();
    seen.sort_unstable();
    seen.dedup();
    seen
}

/// "kitchen_cabinet_3" → "kitchen cabinet 3".
pub(super) fn words(id: &str) -> String {
    id.replace('_', " ")
}

/// Words after their indefinite article: "a plate", "an apple" (by the first letter, as
/// themes write it).
pub(super) fn with_article(words: &str) -> String {
    let vowel = words
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    format!("{} {words}", if vowel { "an" } else { "a" })
}

/// Two options with the correct one first or second at random.
fn shuffled(
    correct: AnswerOption,
    wrong: AnswerOption,
    rng: &mut Rng,
) -> (Vec<AnswerOption>, usize) {
    if rng.chance(0.5) {
        (vec![correct, wrong], 0)
    } else {
        (vec![wrong, correct], 1)
    }
}

/// "Does the agent think an object of `goal` is inside `place`?", answered by the agent's
/// actual belief; `None` when that belief disagrees with the intended answer `inside`.
fn belief_question(
    setting: &Setting<'_>,
    goal: ClassId,
    place: FurnitureId,
    belief: &Belief,
    inside: bool,
    kind: QuestionType,
    rng: &mut Rng,
) -> Option<Question> {
    if belief.thinks_inside(place) != inside {
        return None;
    }
    let world = setting.world;
    let (name, object, container) = (
        setting.agent,
        words(world.class_name(goal)),
        words(&world.furniture(place).name),
    );
    let option = |claim_inside: bool| AnswerOption {
        text: Some(format!(
            "{name} thinks that the {object} is {}inside the {container}.",
            if claim_inside { "" } else { "not " }
        )),
        claim: Claim {
            about: Proposition::Belief {
                class: goal,
                place,
                inside: claim_inside,
            },
            given: Some(Proposition::Goal(goal)),
        },
    };
    let (options, expected) = shuffled(option(inside), option(!inside), rng);
    let text = format!(
        "If {name} has been trying to get {}, which one of the following statements is more likely to be true?",
        with_article(&object)
    );
    Some(generated_question(
        kind,
        text,
        options,
        Expected::Option(expected),
    ))
}

/// Question `q1` of type `kind`, with its wording, options and answer; asked at step 0
/// until the episode is put together, which asks it after the last action.
pub(super) fn generated_question(
    kind: QuestionType,
    text: String,
    options: Vec<AnswerOption>,
    expected: Expected,
) -> Question {
    Question {
        id: "q1".to_string(),
        label: Some(kind.into()),
        text: Some(text),
        at: 0,
        options,
        expected: Some(expected),
    }
}

/// The option "NAME has been trying to get a CLASS", under `given`.
pub(super) fn goal_option(
    world: &World,
    name: &str,
    class: ClassId,
    given: Option<Proposition>,
) -> AnswerOption {
    AnswerOption {
        text: Some(format!(
            "{name} has been trying to get {}.",
            with_article(&words(world.class_name(class)))
        )),
        claim: Claim {
            about: Proposition::Goal(class),
            given,
        },
    }
}

/// "Is the agent after `goal` or `distractor`?", optionally under a belief condition.
fn goal_question(
    setting: &Setting<'_>,
    goal: ClassId,
    distractor: ClassId,
    given: Option<Proposition>,
    kind: QuestionType,
    rng: &mut Rng,
) -> Question {
    let world = setting.world;
    let name = setting.agent;
    let option = |class: ClassId| goal_option(world, name, class, given);
    let condition = match given {
        Some(Proposition::Belief {
            class,
            place,
            inside,
        }) => format!(
            "If {name} thinks there {} {} inside the {}, which",
            if inside { "is" } else { "isn't" },
            with_article(&words(world.class_name(class))),
            words(&world.furniture(place).name)
        ),
        _ => "Which".to_string(),
    };
    let (options, expected) = shuffled(option(goal), option(distractor), rng);
    let text = format!("{condition} one of the following statements is more likely to be true?");
    generated_question(kind, text, options, Expected::Option(expected))
}
