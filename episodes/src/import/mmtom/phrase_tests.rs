use super::*;
use crate::import::mmtom::text::tokenize;

fn phrase(text: &str) -> NounPhrase {
    match noun_phrase(&tokenize(text), 0) {
        Parse::Found(p) => p,
        other => panic!("{text:?}: {other:?}"),
    }
}

fn list(text: &str) -> PhraseList {
    match phrase_list(&tokenize(text), 0) {
        Parse::Found(p) => p,
        other => panic!("{text:?}: {other:?}"),
    }
}

fn class(p: &NounPhrase) -> &'static str {
    match p.head {
        Head::Noun(Noun::Furniture(f)) => f.class,
        Head::Noun(Noun::Object(o)) => o.class,
        Head::Noun(Noun::Room(r)) => r.id,
        Head::Elided => "(elided)",
        Head::Latter => "(latter)",
        Head::Former => "(former)",
        Head::Relative(_) => "(relative)",
        Head::Them => "(them)",
    }
}

#[test]
fn counts_and_plurals() {
    let p = phrase("three bottles of wine");
    assert_eq!(
        (class(&p), p.count, p.plural, p.det),
        ("wine", Some(3), true, Det::Indefinite)
    );
    let p = phrase("a single cabinet");
    assert_eq!((class(&p), p.count), ("cabinet", Some(1)));
    let p = phrase("another cupcake");
    assert_eq!((class(&p), p.count), ("cupcake", Some(1)));
    let p = phrase("a couple of refrigerators");
    assert_eq!((class(&p), p.count, p.plural), ("fridge", Some(2), true));
    let p = phrase("one book");
    assert_eq!((class(&p), p.count), ("book", Some(1)));
    let p = phrase("2 plates");
    assert_eq!((class(&p), p.count), ("plate", Some(2)));
}

#[test]
fn ordinals_with_and_without_their_noun() {
    let p = phrase("the 2nd cabinet counting from the left");
    assert_eq!(
        (class(&p), p.ordinals.clone(), p.from_right),
        ("cabinet", vec![Ordinal::Nth(2)], false)
    );
    assert_eq!(p.span, 0..7);
    let p = phrase("the third cabinet from the right");
    assert!(p.from_right);
    let p = phrase("the fifth, fourth, and second kitchen cabinets");
    assert_eq!(
        p.ordinals,
        [Ordinal::Nth(5), Ordinal::Nth(4), Ordinal::Nth(2)]
    );
    assert_eq!((class(&p), p.plural), ("kitchen_cabinet", true));
    let p = phrase("the sixth one");
    assert_eq!(
        (class(&p), p.ordinals.clone()),
        ("(elided)", vec![Ordinal::Nth(6)])
    );
    let p = phrase("the fourth a bag of chips");
    assert_eq!((class(&p), p.span.clone()), ("(elided)", 0..2));
    let p = phrase("the third cabinet, from left to right, is empty");
    assert_eq!(
        p.span,
        0..9,
        "the parenthetical and both commas belong to the phrase"
    );
    assert!(matches!(
        noun_phrase(&tokenize("first, he walks"), 0),
        Parse::Nothing
    ));
}

#[test]
fn rooms_inside_phrases() {
    let p = phrase("the kitchen sofa");
    assert_eq!((class(&p), p.room.map(|r| r.id)), ("sofa", Some("kitchen")));
    let p = phrase("the cabinet in the bedroom");
    assert_eq!(
        (class(&p), p.room.map(|r| r.id)),
        ("cabinet", Some("bedroom"))
    );
    let p = phrase("the bathroom cabinet");
    assert_eq!((class(&p), p.room), ("bathroom_cabinet", None));
    let p = phrase("one of the kitchen tables");
    assert!(p.one_of && p.plural);
    assert_eq!(class(&p), "kitchen_table");
}

#[test]
fn adjectives_are_skipped_and_unknown_nouns_reported() {
    assert_eq!(class(&phrase("a shiny red apple")), "apple");
    assert_eq!(noun_phrase(&tokenize("a toaster"), 0), Parse::Unknown(0..2));
    assert_eq!(noun_phrase(&tokenize("he walks"), 0), Parse::Nothing);
}

#[test]
fn lists_of_one_kind() {
    let l = list("a stove, kitchen table, microwave, and fridge.");
    let classes: Vec<_> = l.items.iter().map(class).collect();
    assert_eq!(classes, ["stove", "kitchen_table", "microwave", "fridge"]);
    assert!(l
        .items
        .iter()
        .all(|p| p.det == Det::Indefinite && p.count == Some(1)));
    let l = list("another salmon, along with a plate, is in the stove");
    assert_eq!(
        l.items.iter().map(class).collect::<Vec<_>>(),
        ["salmon", "plate"]
    );
    let l = list("a cupcake, and the microwave contains");
    assert_eq!(l.items.len(), 1, "objects and furniture do not mix");
    let l = list("both the microwave and the stove each");
    assert!(l.both);
    assert_eq!(l.items.len(), 2);
    let l = list("the seventh and eighth kitchen cabinets, as well as the first, third, and second kitchen cabinets.");
    assert_eq!(l.items.len(), 2);
    assert_eq!(l.items[1].ordinals.len(), 3);
}
