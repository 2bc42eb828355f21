use super::*;
use crate::import::mmtom::resolve::Reading;
use crate::import::mmtom::scene::read_scene;

const SCENE: &str = "The apartment has a kitchen and a living room. The kitchen is equipped with \
    four cabinets, a fridge and a stove. The second cabinet holds a bottle of wine and a dish bowl. \
    The fridge contains an apple. The living room features a cabinet with a book inside.";

fn read(question: &str, expected: Option<&str>) -> Result<QuestionFile, ImportError> {
    let apartment = read_scene(SCENE)
        .unwrap_or_else(|e| panic!("{e}"))
        .readings
        .remove(0);
    let context = Context {
        room: Some(0),
        mentioned: &[],
        last_noun: None,
        last_list: &[],
        reading: Reading::Named,
    };
    read_question(question, &apartment, &context, expected, Some("1.1"))
}

/// Each option's claim and condition, compactly.
fn claims(question: &str) -> Vec<String> {
    let q = read(question, None).unwrap_or_else(|e| panic!("{e}"));
    let show = |goal: &Option<String>, belief: &Option<BeliefFile>| match (goal, belief) {
        (Some(g), None) => format!("goal {g}"),
        (None, Some(b)) => format!(
            "{} {} {}",
            b.object,
            if b.inside { "in" } else { "not in" },
            b.container
        ),
        _ => "?".into(),
    };
    q.options
        .iter()
        .map(|o| {
            let given = o
                .given
                .as_ref()
                .map(|g| format!(" | {}", show(&g.goal, &g.belief)));
            format!("{}{}", show(&o.goal, &o.belief), given.unwrap_or_default())
        })
        .collect()
}

#[test]
fn beliefs_given_a_goal() {
    assert_eq!(
        claims(
            "If Ann has been trying to get a dishbowl, which one of the following statements is \
             more likely to be true? (a) Ann thinks that the dishbowl is inside the 2nd kitchen \
             cabinet. (b) Ann thinks that the dishbowl is not inside the 2nd kitchen cabinet. \
             Please respond with either a or b."
        ),
        [
            "dish_bowl in kitchen_cabinet_2 | goal dish_bowl",
            "dish_bowl not in kitchen_cabinet_2 | goal dish_bowl"
        ]
    );
}

#[test]
fn goals_given_a_belief_either_way() {
    assert_eq!(
        claims(
            "If Ann think there isn't a book inside the cabinet, which one of the following \
             statements is more likely to be true? (a) Ann has been trying to get an apple. (b) Ann \
             has been trying to get a book."
        ),
        ["goal apple | book not in cabinet", "goal book | book not in cabinet"]
    );
    assert_eq!(
        claims(
            "Assuming that Ann believes there is a bottle of wine in the refrigerator, which is \
             likelier? (a) Ann wants a bottle of wine. (b) Ann is looking for an apple."
        ),
        ["goal wine | wine in fridge", "goal apple | wine in fridge"]
    );
}

#[test]
fn unconditional_goals_and_paraphrased_beliefs() {
    assert_eq!(
        claims("Which one is more likely? (a) Ann has been trying to get a bottle of wine. (b) Ann is after an apple."),
        ["goal wine", "goal apple"]
    );
    assert_eq!(
        claims(
            "Suppose Ann is searching for the wine, what is more likely? (A) Ann believes the wine \
             is in the second kitchen cupboard from the left. (B) Ann doesn't think that the \
             wine isn't in the fridge."
        ),
        ["wine in kitchen_cabinet_2 | goal wine", "wine in fridge | goal wine"]
    );
}

#[test]
fn options_keep_their_order_and_the_answer_letter_is_checked() {
    let q = read(
        "Which one? (a) Ann has been trying to get an apple. (b) Ann has been trying to get a book.",
        Some("B"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(q.expected.as_deref(), Some("b"));
    assert_eq!(q.label.as_deref(), Some("1.1"));
    assert_eq!(
        q.options[0].text.as_deref(),
        Some("Ann has been trying to get an apple.")
    );
    let e = read(
        "Which one? (a) Ann wants an apple. (b) Ann wants a book.",
        Some("c"),
    );
    assert!(
        matches!(
            e,
            Err(ImportError::Field {
                field: "answer",
                ..
            })
        ),
        "{e:?}"
    );
}

#[test]
fn goals_may_be_about_classes_the_scene_lacks() {
    let q = read(
        "Which one? (a) Ann wants a cupcake. (b) Ann wants a book.",
        None,
    )
    .expect("a goal about a class the scene lacks is a goal all the same");
    assert_eq!(q.options[0].goal.as_deref(), Some("cupcake"));
}

#[test]
fn what_is_not_a_claim_is_an_error() {
    let e =
        read("Which one? (a) Ann is tired. (b) Ann wants a book.", None).expect_err("not a claim");
    assert!(e.to_string().contains("neither a goal"), "{e}");
    let e = read(
        "Which one? (a) Ann wants a toaster. (b) Ann wants a book.",
        None,
    )
    .expect_err("no such class");
    assert!(e.to_string().contains("toaster"), "{e}");
    let e = read("Which one? Ann wants a cupcake.", None).expect_err("no options");
    assert!(e.to_string().contains("options marked"), "{e}");
    let e = read("Which one? (a) Ann thinks the apple is in the fridge. (b) Ann thinks the apple is somewhere.", None)
        .expect_err("no container");
    assert!(e.to_string().contains("no container"), "{e}");
    let e = read(
        "Which one? (a) Ann is not trying to get an apple. (b) Ann wants a book.",
        None,
    )
    .expect_err("negated goal");
    assert!(e.to_string().contains("does not have"), "{e}");
}
