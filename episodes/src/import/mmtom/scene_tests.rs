use super::*;
use crate::import::mmtom::apartment::Apartment;

/// Each piece as `id[object classes]`, in scene order, in the only reading.
fn layout(text: &str) -> Vec<String> {
    let scene = read_scene(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        scene.readings.len(),
        1,
        "one reading of {text:?}: {scene:?}"
    );
    describe(&scene.readings[0])
}

/// Each reading's layout.
fn readings(text: &str) -> Vec<Vec<String>> {
    let scene = read_scene(text).unwrap_or_else(|e| panic!("{e}"));
    scene.readings.iter().map(describe).collect()
}

fn describe(apartment: &Apartment) -> Vec<String> {
    let ids = apartment.furniture_ids();
    ids.iter()
        .enumerate()
        .map(|(p, id)| {
            let things: Vec<&str> = apartment
                .objects
                .iter()
                .filter(|o| o.at == p)
                .map(|o| o.def.class)
                .collect();
            format!("{id}[{}]", things.join(","))
        })
        .collect()
}

fn error(text: &str) -> ImportError {
    match read_scene(text) {
        Ok(a) => panic!("read {a:?}"),
        Err(e) => e,
    }
}

#[test]
fn counts_ordinals_synonyms_and_plurals() {
    let text = "The kitchen has three cupboards, a refrigerator and an oven. The 2nd cupboard \
        counting from the left holds three bottles of wine. The leftmost cupboard stores a bag of \
        chips, and the last one contains two pieces of salmon. The refrigerator is stocked with a \
        couple of apples.";
    assert_eq!(
        layout(text),
        [
            "kitchen_cabinet_1[chips]",
            "kitchen_cabinet_2[wine,wine,wine]",
            "kitchen_cabinet_3[salmon,salmon]",
            "fridge[apple,apple]",
            "stove[]"
        ]
    );
}

#[test]
fn things_go_to_the_place_a_preposition_names_or_else_the_place_before_them() {
    let text =
        "In the lounge, you will see a couch, a desk and a cabinet. Two remote controls can \
        be found on the couch, while the desk has a novel on it. Inside the cabinet sits a \
        cupcake, and a plate is resting on the desk.";
    assert_eq!(
        layout(text),
        [
            "sofa[remote_control,remote_control]",
            "desk[book,plate]",
            "cabinet[cupcake]"
        ]
    );
}

#[test]
fn each_both_respectively_and_the_latter() {
    let text =
        "The kitchen features four cabinets, a microwave and a stove. The microwave and the \
        stove each hold a cupcake. The third and fourth cabinets contain an apple and a plate, \
        respectively. Both the first and the second cabinets have a book inside. \
        The bedroom is furnished with a desk and a sofa, the latter of which has a bowl on it.";
    assert_eq!(
        layout(text),
        [
            "kitchen_cabinet_1[book]",
            "kitchen_cabinet_2[book]",
            "kitchen_cabinet_3[apple]",
            "kitchen_cabinet_4[plate]",
            "microwave[cupcake]",
            "stove[cupcake]",
            "desk[]",
            "sofa[dish_bowl]"
        ]
    );
}

#[test]
fn rooms_switch_by_sentence_and_classes_in_several_rooms_get_room_prefixes() {
    let text = "The apartment has a kitchen, a bedroom and a living room. In the bedroom there is \
        a coffee table with a wine glass on it. The living room contains a coffee table and a \
        cabinet. A book lies on the coffee table. The kitchen has two tables and a cabinet. On one \
        of the kitchen tables there is a salmon. The other kitchen table holds a plate, and the \
        cabinet stores a mug.";
    let first = [
        "bedroom_coffee_table[wine_glass]",
        "living_room_coffee_table[book]",
        "cabinet[]",
        "kitchen_table_1[salmon]",
        "kitchen_table_2[plate]",
        "kitchen_cabinet_1[mug]",
    ];
    let mut second = first.map(String::from).to_vec();
    second[3] = "kitchen_table_1[plate]".into();
    second[4] = "kitchen_table_2[salmon]".into();
    assert_eq!(
        readings(text),
        [first.map(String::from).to_vec(), second],
        "\"one of the kitchen tables\" may be either; \"the other\" is the one not chosen"
    );
}

#[test]
fn empty_places_and_contradicting_emptiness_are_fine() {
    let text =
        "The kitchen is equipped with two cabinets. The first and second cabinets, from left \
        to right, are empty, while the first cabinet from the left has an apple.";
    assert_eq!(
        layout(text),
        ["kitchen_cabinet_1[apple]", "kitchen_cabinet_2[]"]
    );
}

#[test]
fn the_room_may_come_after_the_furniture_and_it_may_stand_for_a_place() {
    let text = "There is a fridge in the kitchen. Inside it, there are two apples. The bathroom \
        contains a cabinet; it holds a towel.";
    assert_eq!(
        layout(text),
        ["fridge[apple,apple]", "bathroom_cabinet[towel]"]
    );
}

#[test]
fn denied_things_are_not_added() {
    let text = "The kitchen has a fridge and a stove. There is no apple in the fridge, and the \
        stove holds a salmon but not any plates.";
    assert_eq!(layout(text), ["fridge[]", "stove[salmon]"]);
}

#[test]
fn unknown_things_are_errors_naming_the_phrase() {
    let e = error("The kitchen has a fridge and a toaster.");
    assert!(
        matches!(&e, ImportError::Unreadable { part: Part::Scene, phrase, .. } if phrase == "a toaster"),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("The kitchen has a fridge and a toaster."),
        "{e}"
    );
}

#[test]
fn things_without_a_place_are_errors() {
    let e = error("The kitchen has a fridge. There are two apples.");
    assert!(e.to_string().contains("no place is named"), "{e}");
    let e = error("A fridge holds an apple.");
    assert!(e.to_string().contains("no room has been described"), "{e}");
}

#[test]
fn things_over_several_places_with_nothing_saying_which_are_several_readings() {
    assert_eq!(
        readings(
            "The kitchen has a fridge and a stove. The fridge and the stove contain an apple."
        ),
        [
            vec!["fridge[apple]", "stove[]"],
            vec!["fridge[]", "stove[apple]"]
        ]
    );
    let e = error(
        "The kitchen has two cabinets and a stove. The first and second cabinets contain an apple, \
         a plate, and a mug respectively.",
    );
    assert!(
        e.to_string().contains("pairs 3 things with 2 places"),
        "{e}"
    );
}

#[test]
fn a_row_has_no_piece_past_its_end() {
    let e = error("The kitchen has four cabinets. The fifth cabinet holds an apple.");
    assert!(e.to_string().contains("the row has 4 pieces, not 5"), "{e}");
}

#[test]
fn a_count_not_said_is_the_least_the_words_allow() {
    let scene = read_scene("The kitchen has a fridge. The fridge holds apples.").expect("readable");
    assert_eq!(describe(&scene.readings[0]), ["fridge[apple,apple]"]);
    assert!(scene.notes[0].reading.contains("how many is not said"));
    assert_eq!(
        layout("The kitchen has a fridge and a stove. Several plates are in the fridge and in the stove."),
        ["fridge[plate]", "stove[plate]"]
    );
}

#[test]
fn counts_beyond_an_apartment_are_refused_before_anything_is_made() {
    let e = error("The kitchen has a fridge. The fridge holds 100000000 wine glasses.");
    assert!(e.to_string().contains("more than 100"), "{e}");
    let e = error("The kitchen has 5000 cabinets.");
    assert!(e.to_string().contains("5000 cabinets"), "{e}");
}

#[test]
fn counts_not_meant_literally_are_refused_not_read_as_another_number() {
    for (text, phrase) in [
        (
            "The kitchen has a fridge. The fridge holds nine hundred apples.",
            "nine hundred",
        ),
        (
            "The kitchen has a fridge. The fridge holds a billion apples.",
            "a billion",
        ),
        (
            "The kitchen has a fridge. The fridge holds -5 apples.",
            "-5",
        ),
    ] {
        let e = error(text).to_string();
        assert!(
            e.contains(phrase) && e.contains("not taken literally"),
            "{text}: {e}"
        );
    }
}
