use super::*;
use crate::import::mmtom::text::tokenize;

fn noun(text: &str) -> Option<(Noun, bool, usize)> {
    noun_at(&tokenize(text), 0).map(|m| (m.noun, m.plural, m.len))
}

fn class_of(text: &str) -> String {
    match noun(text).map(|(n, _, _)| n) {
        Some(Noun::Room(r)) => format!("room {}", r.id),
        Some(Noun::Furniture(f)) => format!("furniture {}", f.class),
        Some(Noun::Object(o)) => format!("object {}", o.class),
        None => "none".into(),
    }
}

#[test]
fn synonyms_name_one_class() {
    assert_eq!(class_of("refrigerator"), "furniture fridge");
    assert_eq!(class_of("fridge"), "furniture fridge");
    assert_eq!(class_of("couch"), "furniture sofa");
    assert_eq!(class_of("bottle of wine"), "object wine");
    assert_eq!(class_of("wine bottle"), "object wine");
    assert_eq!(class_of("dishbowl"), "object dish_bowl");
    assert_eq!(class_of("dish bowl"), "object dish_bowl");
    assert_eq!(class_of("lounge"), "room living_room");
}

#[test]
fn longest_name_wins() {
    assert_eq!(class_of("kitchen cabinet"), "furniture kitchen_cabinet");
    assert_eq!(class_of("kitchen table"), "furniture kitchen_table");
    assert_eq!(class_of("kitchen"), "room kitchen");
    assert_eq!(class_of("wine glass"), "object wine_glass");
    assert_eq!(class_of("bathroom cabinet"), "furniture bathroom_cabinet");
    assert_eq!(noun("living room sofa").map(|(_, _, len)| len), Some(2));
}

#[test]
fn plural_forms_are_generated() {
    assert_eq!(plural("bag of chips"), "bags of chips");
    assert_eq!(plural("piece of salmon"), "pieces of salmon");
    assert_eq!(plural("wine glass"), "wine glasses");
    assert_eq!(plural("bookshelf"), "bookshelves");
    assert_eq!(plural("couch"), "couches");
    assert_eq!(plural("cabinet"), "cabinets");
    assert_eq!(
        noun("bottles of wine"),
        noun("bottle of wine").map(|(n, _, l)| (n, true, l))
    );
    assert_eq!(class_of("pieces of salmon"), "object salmon");
    assert_eq!(class_of("salmons"), "object salmon");
    assert!(noun("three bottles").is_none());
}

#[test]
fn room_specific_classes() {
    let cabinet = furniture_class("cabinet").expect("cabinet");
    assert_eq!(cabinet.in_room("kitchen").class, "kitchen_cabinet");
    assert_eq!(cabinet.in_room("bathroom").class, "bathroom_cabinet");
    assert_eq!(cabinet.in_room("bedroom").class, "cabinet");
    let table = furniture_class("table").expect("table");
    assert_eq!(table.in_room("kitchen").class, "kitchen_table");
}
