use super::*;
use crate::import::mmtom::lexicon::{furniture_class, room, OBJECTS};
use crate::import::mmtom::phrase::{noun_phrase, Parse};
use crate::import::mmtom::text::tokenize;

/// Kitchen with four numbered cabinets and a fridge, living room with a cabinet and a
/// coffee table, bathroom with a bathroom cabinet.
fn apartment() -> Apartment {
    let mut a = Apartment::default();
    let def = |c: &str| furniture_class(c).expect("class");
    let kitchen = a.room(room("kitchen").expect("kitchen"));
    let living = a.room(room("living_room").expect("living room"));
    let bathroom = a.room(room("bathroom").expect("bathroom"));
    a.add_furniture(def("kitchen_cabinet"), kitchen, 4); // 0..=3
    a.add_furniture(def("fridge"), kitchen, 1); // 4
    a.add_furniture(def("cabinet"), living, 1); // 5
    a.add_furniture(def("coffee_table"), living, 1); // 6
    a.add_furniture(def("bathroom_cabinet"), bathroom, 1); // 7
    a
}

fn read(text: &str, room: Option<usize>, reading: Reading) -> Result<Vec<usize>, Unresolved> {
    let phrase = match noun_phrase(&tokenize(text), 0) {
        Parse::Found(p) => p,
        other => panic!("{text:?}: {other:?}"),
    };
    let context = Context {
        room,
        mentioned: &[],
        last_noun: furniture_class("cabinet"),
        last_list: &[5, 6],
        reading,
    };
    furniture(&apartment(), &phrase, &context)
}

const KITCHEN: Option<usize> = Some(0);
const LIVING: Option<usize> = Some(1);
const BATHROOM: Option<usize> = Some(2);

#[test]
fn ordinals_pick_from_the_numbered_row() {
    let situated = Reading::Situated;
    assert_eq!(read("the third cabinet", KITCHEN, situated), Ok(vec![2]));
    assert_eq!(
        read("the 2nd cabinet counting from the left", BATHROOM, situated),
        Ok(vec![1])
    );
    assert_eq!(
        read("the first cabinet from the right", KITCHEN, situated),
        Ok(vec![3])
    );
    assert_eq!(
        read("the last kitchen cabinet", None, situated),
        Ok(vec![3])
    );
    assert_eq!(
        read("the fourth and second ones", KITCHEN, situated),
        Ok(vec![3, 1])
    );
    assert!(matches!(
        read("the fifth cabinet", KITCHEN, situated),
        Err(Unresolved::NotFound(_))
    ));
}

#[test]
fn a_bare_cabinet_is_the_one_in_the_agents_room_in_a_narrative() {
    let situated = Reading::Situated;
    assert_eq!(read("the cabinet", BATHROOM, situated), Ok(vec![7]));
    assert_eq!(read("a cabinet", LIVING, situated), Ok(vec![5]));
    assert_eq!(read("the bathroom cabinet", KITCHEN, situated), Ok(vec![7]));
    assert_eq!(
        read("the cupboard in the living room", BATHROOM, situated),
        Ok(vec![5])
    );
    assert_eq!(read("the refrigerator", LIVING, situated), Ok(vec![4]));
}

#[test]
fn a_bare_cabinet_in_a_question_is_the_one_named_cabinet() {
    assert_eq!(read("the cabinet", KITCHEN, Reading::Named), Ok(vec![5]));
    assert_eq!(read("the cabinet", BATHROOM, Reading::Named), Ok(vec![5]));
    assert_eq!(
        read("the 1st kitchen cabinet", BATHROOM, Reading::Named),
        Ok(vec![0])
    );
}

#[test]
fn latter_and_missing_things() {
    assert_eq!(read("the latter", None, Reading::Situated), Ok(vec![6]));
    assert_eq!(read("the former", None, Reading::Situated), Ok(vec![5]));
    assert!(matches!(
        read("the desk", KITCHEN, Reading::Situated),
        Err(Unresolved::NotFound(_))
    ));
    assert_eq!(
        read("the kitchen cabinets", KITCHEN, Reading::Situated),
        Ok(vec![0, 1, 2, 3]),
        "a plural names every piece"
    );
}

#[test]
fn objects_nearest_first() {
    let mut a = apartment();
    let apple = OBJECTS.iter().find(|o| o.class == "apple").expect("apple");
    a.add_object(apple, 6);
    a.add_object(apple, 4);
    assert_eq!(object(&a, apple, KITCHEN, None), Some(1));
    assert_eq!(object(&a, apple, BATHROOM, None), Some(0));
    let book = OBJECTS.iter().find(|o| o.class == "book").expect("book");
    assert_eq!(object(&a, book, KITCHEN, None), None);
    assert_eq!(
        object(&a, apple, KITCHEN, Some(6)),
        Some(0),
        "the piece in focus first"
    );
}
