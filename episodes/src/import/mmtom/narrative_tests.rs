use super::*;
use crate::import::mmtom::scene::read_scene;
use crate::import::mmtom::script::play;
use crate::json::ActionFile;

const SCENE: &str =
    "The apartment consists of a kitchen, a living room, a bathroom and a bedroom. \
    The kitchen is equipped with four cabinets, a refrigerator, a microwave, a stove and a kitchen \
    table. The fridge contains an apple. A bottle of wine sits on the kitchen table. \
    The living room features a cabinet, a sofa and a coffee table. The cabinet holds a cupcake. \
    The bathroom has a cabinet. The bedroom has a desk with a book and a bottle of wine on it.";

/// The first, third and fourth kitchen cabinets each walked to, opened and closed.
const OPEN_AND_CLOSE_1_3_4: [&str; 9] = [
    "w:kitchen_cabinet_1",
    "o:kitchen_cabinet_1",
    "c:kitchen_cabinet_1",
    "w:kitchen_cabinet_3",
    "o:kitchen_cabinet_3",
    "c:kitchen_cabinet_3",
    "w:kitchen_cabinet_4",
    "o:kitchen_cabinet_4",
    "c:kitchen_cabinet_4",
];

/// The actions a narrative becomes, as `w:place`, `o:container`, `c:container`.
fn actions(narrative: &str) -> Vec<String> {
    let apartment = read_scene(SCENE)
        .unwrap_or_else(|e| panic!("{e}"))
        .readings
        .remove(0);
    let read = read_narrative(narrative, "Ann", &apartment).unwrap_or_else(|e| panic!("{e}"));
    let script = play(&apartment, &read).unwrap_or_else(|e| panic!("{e:?}"));
    script
        .actions
        .iter()
        .map(|a| match a {
            ActionFile::WalkTo(p) => format!("w:{p}"),
            ActionFile::Open(p) => format!("o:{p}"),
            ActionFile::Close(p) => format!("c:{p}"),
            ActionFile::Grab(p) => format!("g:{p}"),
            ActionFile::Put { object, onto } => format!("p:{object}:{onto}"),
        })
        .collect()
}

fn error(narrative: &str) -> String {
    let apartment = read_scene(SCENE)
        .unwrap_or_else(|e| panic!("{e}"))
        .readings
        .remove(0);
    match read_narrative(narrative, "Ann", &apartment) {
        Ok(read) => match play(&apartment, &read) {
            Ok(script) => panic!("read {:?}", script.actions),
            Err((_, reason)) => reason,
        },
        Err(e) => e.to_string(),
    }
}

#[test]
fn paraphrased_motion_open_and_close_verbs() {
    assert_eq!(
        actions(
            "Ann is in the bathroom. She strolls over to the kitchen, heads for the refrigerator, \
             swings it open and then slams it shut."
        ),
        ["w:kitchen", "w:fridge", "o:fridge", "c:fridge"]
    );
    assert_eq!(
        actions("Ann starts in the kitchen. She saunters up to the microwave, which she unlocks and seals."),
        ["w:microwave", "o:microwave", "c:microwave"]
    );
}

#[test]
fn opening_walks_to_the_container_first() {
    assert_eq!(
        actions(
            "Ann is situated in the living room. She goes into the kitchen and opens the stove."
        ),
        ["w:kitchen", "w:stove", "o:stove"]
    );
}

#[test]
fn ordinals_and_elided_nouns() {
    assert_eq!(
        actions(
            "Ann is in the kitchen. She ambles to the 2nd cabinet counting from the left, opens \
             it and shuts it. Then she opens the last one and closes it, before opening the \
             third cabinet from the right."
        ),
        [
            "w:kitchen_cabinet_2",
            "o:kitchen_cabinet_2",
            "c:kitchen_cabinet_2",
            "w:kitchen_cabinet_4",
            "o:kitchen_cabinet_4",
            "c:kitchen_cabinet_4",
            "w:kitchen_cabinet_2",
            "o:kitchen_cabinet_2"
        ]
    );
}

#[test]
fn doing_the_same_again_in_other_words_and_orders() {
    for text in [
        "Ann is in the kitchen. She opens and closes the first cabinet. She repeats the same \
         routine with the third and fourth ones.",
        "Ann is in the kitchen. After opening the first cabinet, she closes it. She then proceeds \
         to do the same with the third and the fourth kitchen cupboards.",
        "Ann is in the kitchen. She walks up to the first cabinet, opens it and closes it, \
         followed by the third cabinet, and the fourth cabinet.",
        "Ann is in the kitchen. She approaches the first, third and fourth cabinets in turn, \
         opening and closing each of them.",
        "Ann is in the kitchen. She opens the first, third, and fourth cabinets one after \
         another, shutting each one after.",
        "Ann is in the kitchen. She opens the first cabinet and closes it. Next she heads to the \
         third cabinet, repeating the process, and carries on this pattern with the fourth.",
    ] {
        assert_eq!(actions(text), OPEN_AND_CLOSE_1_3_4, "{text}");
    }
}

#[test]
fn about_to_open_is_a_walk_only() {
    for text in [
        "Ann is in the bathroom. She walks to the kitchen and is about to open the fridge.",
        "Ann is in the bathroom. She walks to the kitchen, gets ready to open the refrigerator.",
        "Ann is in the bathroom. She walks to the kitchen. She is on the brink of opening the fridge.",
        "Ann is in the bathroom. She heads to the kitchen, makes her way to the fridge, and prepares to open it.",
    ] {
        assert_eq!(actions(text), ["w:kitchen", "w:fridge"], "{text}");
    }
}

#[test]
fn walking_towards_an_object_means_the_nearest_one() {
    assert_eq!(
        actions("Ann is in the bathroom. She hurries to the kitchen and then towards the wine."),
        ["w:kitchen", "w:wine_1"]
    );
    assert_eq!(
        actions("Ann is in the bedroom. She heads towards the bottle of wine."),
        ["w:wine_2"]
    );
}

#[test]
fn places_after_in_are_where_the_agent_is_not_where_it_goes() {
    assert_eq!(
        actions(
            "Ann is initially in the kitchen. She continues her stroll in the kitchen, then \
             marches to the living room and is on the verge of opening a cabinet there. \
             Concluding her kitchen tour, she leaves the living room."
        ),
        ["w:living_room", "w:cabinet"]
    );
    assert_eq!(
        actions(
            "Ann is in the bathroom. In the bathroom, she approaches the cabinet and opens it."
        ),
        ["w:bathroom_cabinet", "o:bathroom_cabinet"]
    );
}

#[test]
fn the_start_may_be_a_source() {
    assert_eq!(
        actions("From the bathroom, Ann Lee gets to the kitchen and enters the living room."),
        ["w:kitchen", "w:living_room"]
    );
}

#[test]
fn walking_where_the_agent_already_is_is_dropped() {
    assert_eq!(
        actions(
            "Ann is in the kitchen. She heads to the kitchen. She walks to the stove. Upon \
             reaching the stove, she opens it."
        ),
        ["w:stove", "o:stove"]
    );
}

#[test]
fn every_error_names_its_reason() {
    assert!(error("She walks to the kitchen.").contains("which room"));
    assert!(error("Ann is in the kitchen. She opens the toaster.").contains("no such place"));
    assert!(error("Ann is in the kitchen. She opens.").contains("nothing is in focus"));
    assert!(error("Ann is in the kitchen. The fridge.").contains("no verb"));
    assert!(error("Ann is in the kitchen. She opens the kitchen table.").contains("is a surface"));
    assert!(error(
        "Ann is in the kitchen. She opens the stove and closes it twice, then closes it."
    )
    .contains("already closed"));
    assert!(
        error("Ann is in the kitchen. She repeats this action with.")
            .contains("not followed by a place")
    );
    assert!(error("Ann is in the kitchen. She opens the fifth cabinet.").contains("not 5"));
    assert!(error("Ann is in the garage.").contains("which room"));
    assert!(error("Ann is in the kitchen. She peeks inside the fridge.")
        .contains("no verb says what it does there"));
}

#[test]
fn a_sentence_taking_the_last_places_one_by_one_spreads_over_them() {
    for text in [
        "Ann is in the kitchen. She visits the first, third and fourth cabinets. At each one she \
         opens it and shuts it again before going on to the next one.",
        "Ann is in the kitchen. She goes over to the first, third and fourth cabinets. At each \
         of them, she opens it, then closes it.",
        "Ann is in the kitchen. She goes over to the first, third and fourth cabinets. At every \
         one of them, she opens it, then closes it.",
        "Ann is in the kitchen. She walks to the first, third and fourth cabinets and, at each \
         one of them, opens it and then closes it.",
        "Ann is in the kitchen. She visits the first, third and fourth cabinets; at each one she \
         opens it and shuts it again before going on to the next one.",
    ] {
        assert_eq!(actions(text), OPEN_AND_CLOSE_1_3_4, "{text}");
    }
    // Another place in between: "each" is about the cabinets only if they were the last.
    assert_eq!(
        actions(
            "Ann is in the kitchen. She visits the first and third cabinets. She goes to the \
             fridge. At each one she opens it."
        ),
        [
            "w:kitchen_cabinet_1",
            "w:kitchen_cabinet_3",
            "w:fridge",
            "o:fridge"
        ]
    );
}

#[test]
fn approaching_a_thing_the_scene_never_listed_keeps_the_agent_in_its_room() {
    for text in [
        "Ann is in the bedroom. She proceeds to the living room. She then approaches the pillow.",
        "Ann is in the bedroom. She heads into the living room and walks up to a floor lamp.",
    ] {
        assert_eq!(actions(text), ["w:living_room"], "{text}");
    }
    // What it should do there is still unknown: a refusal, naming the phrase.
    let e = error("Ann is in the bedroom. She goes to the living room and opens the pillow.");
    assert!(e.contains("the pillow"), "{e}");
}

#[test]
fn each_one_of_the_places_is_a_phrase_of_its_own() {
    for text in [
        "Ann is in the kitchen. She opens every one of the first three cabinets in turn and \
         closes it again.",
        "Ann is in the kitchen. She opens each one of the first three cabinets in turn and \
         closes it again.",
    ] {
        assert_eq!(
            actions(text),
            [
                "w:kitchen_cabinet_1",
                "o:kitchen_cabinet_1",
                "c:kitchen_cabinet_1",
                "w:kitchen_cabinet_2",
                "o:kitchen_cabinet_2",
                "c:kitchen_cabinet_2",
                "w:kitchen_cabinet_3",
                "o:kitchen_cabinet_3",
                "c:kitchen_cabinet_3",
            ],
            "{text}"
        );
    }
}
