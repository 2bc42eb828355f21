//! The nouns of MMToM-QA apartments: rooms, furniture and objects, with their synonyms
//! and plural forms, and the number and ordinal words that count and order them.
//!
//! Every entry maps surface forms to one canonical id: a room id (`living_room`), a
//! furniture class (`kitchen_cabinet`) or an object class (`wine`, for "bottle of wine").
//! Plurals are generated (`bag of chips` → `bags of chips`, `shelf` → `shelves`), and a
//! longest-match lookup reads multi-word names (`kitchen cabinet` before `kitchen`).

use std::collections::HashMap;
use std::sync::LazyLock;

use super::text::Token;

/// A room of the apartment.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct RoomDef {
    /// Room id in episodes.
    pub(crate) id: &'static str,
    /// Names in text, singular.
    pub(crate) names: &'static [&'static str],
}

/// Whether a piece of furniture must be opened to see inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Opens and closes (fridge, cabinet).
    Container,
    /// Always in view (table, sofa).
    Surface,
}

/// A class of furniture.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FurnitureDef {
    /// Class id (the VirtualHome class, snake_case).
    pub(crate) class: &'static str,
    /// Classes a bare head noun of this entry may refer to share a family: "the cabinet"
    /// can mean a kitchen cabinet or a bathroom cabinet.
    pub(crate) family: &'static str,
    /// Container or surface.
    pub(crate) kind: Kind,
    /// Names in text, singular.
    pub(crate) names: &'static [&'static str],
    /// Room-specific classes: a "cabinet" declared in the kitchen is a `kitchen_cabinet`.
    pub(crate) in_room: &'static [(&'static str, &'static str)],
}

/// A class of object.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ObjectDef {
    /// Class id.
    pub(crate) class: &'static str,
    /// Names in text, singular.
    pub(crate) names: &'static [&'static str],
}

/// Rooms, in the order used when nothing else decides.
pub(crate) const ROOMS: &[RoomDef] = &[
    RoomDef { id: "kitchen", names: &["kitchen"] },
    RoomDef { id: "living_room", names: &["living room", "livingroom", "lounge", "sitting room", "family room"] },
    RoomDef { id: "bedroom", names: &["bedroom", "bed room"] },
    RoomDef { id: "bathroom", names: &["bathroom", "bath room", "restroom", "washroom"] },
    RoomDef { id: "dining_room", names: &["dining room"] },
];

const CONTAINER: Kind = Kind::Container;
const SURFACE: Kind = Kind::Surface;

/// Furniture classes.
pub(crate) const FURNITURE: &[FurnitureDef] = &[
    FurnitureDef { class: "fridge", family: "fridge", kind: CONTAINER, names: &["fridge", "refrigerator", "fridge freezer"], in_room: &[] },
    FurnitureDef { class: "microwave", family: "microwave", kind: CONTAINER, names: &["microwave", "microwave oven"], in_room: &[] },
    FurnitureDef { class: "stove", family: "stove", kind: CONTAINER, names: &["stove", "oven", "cooker"], in_room: &[] },
    FurnitureDef { class: "dishwasher", family: "dishwasher", kind: CONTAINER, names: &["dishwasher", "dish washer"], in_room: &[] },
    FurnitureDef { class: "kitchen_cabinet", family: "cabinet", kind: CONTAINER, names: &["kitchen cabinet", "kitchen cupboard"], in_room: &[] },
    FurnitureDef { class: "bathroom_cabinet", family: "cabinet", kind: CONTAINER, names: &["bathroom cabinet", "bathroom cupboard", "medicine cabinet"], in_room: &[] },
    FurnitureDef {
        class: "cabinet",
        family: "cabinet",
        kind: CONTAINER,
        names: &["cabinet", "cupboard"],
        in_room: &[("kitchen", "kitchen_cabinet"), ("bathroom", "bathroom_cabinet")],
    },
    FurnitureDef { class: "wardrobe", family: "wardrobe", kind: CONTAINER, names: &["wardrobe"], in_room: &[] },
    FurnitureDef { class: "kitchen_table", family: "table", kind: SURFACE, names: &["kitchen table", "dining table"], in_room: &[] },
    FurnitureDef { class: "coffee_table", family: "table", kind: SURFACE, names: &["coffee table"], in_room: &[] },
    FurnitureDef { class: "table", family: "table", kind: SURFACE, names: &["table"], in_room: &[("kitchen", "kitchen_table")] },
    FurnitureDef { class: "desk", family: "desk", kind: SURFACE, names: &["desk"], in_room: &[] },
    FurnitureDef { class: "sofa", family: "sofa", kind: SURFACE, names: &["sofa", "couch", "settee"], in_room: &[] },
    FurnitureDef { class: "bookshelf", family: "bookshelf", kind: SURFACE, names: &["bookshelf", "bookcase", "book shelf"], in_room: &[] },
    FurnitureDef { class: "bed", family: "bed", kind: SURFACE, names: &["bed"], in_room: &[] },
    FurnitureDef { class: "nightstand", family: "nightstand", kind: SURFACE, names: &["nightstand", "night stand", "bedside table"], in_room: &[] },
    FurnitureDef { class: "tv_stand", family: "tv_stand", kind: SURFACE, names: &["tv stand"], in_room: &[] },
    FurnitureDef { class: "kitchen_counter", family: "counter", kind: SURFACE, names: &["kitchen counter", "counter", "countertop"], in_room: &[] },
];

/// Object classes.
pub(crate) const OBJECTS: &[ObjectDef] = &[
    ObjectDef { class: "apple", names: &["apple"] },
    ObjectDef { class: "book", names: &["book", "novel"] },
    ObjectDef { class: "wine", names: &["bottle of wine", "wine bottle", "wine"] },
    ObjectDef { class: "wine_glass", names: &["wine glass", "wineglass", "glass of wine"] },
    ObjectDef { class: "water_glass", names: &["water glass", "waterglass", "glass of water", "drinking glass"] },
    ObjectDef { class: "dish_bowl", names: &["dish bowl", "dishbowl", "bowl"] },
    ObjectDef { class: "chips", names: &["bag of chips", "packet of chips", "chips", "bag of crisps", "crisps"] },
    ObjectDef { class: "condiment_bottle", names: &["condiment bottle", "bottle of condiment", "condimentbottle", "condiment"] },
    ObjectDef { class: "remote_control", names: &["remote control", "remotecontrol", "tv remote", "remote"] },
    ObjectDef { class: "cupcake", names: &["cupcake", "cup cake"] },
    ObjectDef { class: "salmon", names: &["salmon", "piece of salmon", "salmon fillet"] },
    ObjectDef { class: "plate", names: &["plate"] },
    ObjectDef { class: "mug", names: &["mug", "coffee mug"] },
    ObjectDef { class: "milk", names: &["milk", "bottle of milk", "carton of milk"] },
    ObjectDef { class: "juice", names: &["juice", "bottle of juice"] },
    ObjectDef { class: "bread", names: &["bread", "loaf of bread", "slice of bread"] },
    ObjectDef { class: "cereal", names: &["cereal", "box of cereal"] },
    ObjectDef { class: "pudding", names: &["pudding"] },
    ObjectDef { class: "chocolate_syrup", names: &["chocolate syrup", "bottle of chocolate syrup"] },
    ObjectDef { class: "banana", names: &["banana"] },
    ObjectDef { class: "towel", names: &["towel"] },
    ObjectDef { class: "toothbrush", names: &["toothbrush"] },
    ObjectDef { class: "cellphone", names: &["cellphone", "cell phone", "phone"] },
];

/// A noun the lexicon knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Noun {
    /// A room.
    Room(&'static RoomDef),
    /// A piece of furniture.
    Furniture(&'static FurnitureDef),
    /// An object.
    Object(&'static ObjectDef),
}

/// A noun found in a token sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NounMatch {
    /// What it names.
    pub(crate) noun: Noun,
    /// Whether the plural form was used.
    pub(crate) plural: bool,
    /// How many tokens it spans.
    pub(crate) len: usize,
}

struct Nouns {
    forms: HashMap<String, (Noun, bool)>,
    longest: usize,
}

static NOUNS: LazyLock<Nouns> = LazyLock::new(|| {
    let mut forms = HashMap::new();
    let mut add = |names: &[&str], noun: Noun| {
        for name in names {
            forms.entry(name.to_string()).or_insert((noun, false));
            forms.entry(plural(name)).or_insert((noun, true));
        }
    };
    for r in ROOMS {
        add(r.names, Noun::Room(r));
    }
    for f in FURNITURE {
        add(f.names, Noun::Furniture(f));
    }
    for o in OBJECTS {
        add(o.names, Noun::Object(o));
    }
    let longest = forms.keys().map(|k| k.split(' ').count()).max().unwrap_or(1);
    Nouns { forms, longest }
});

/// The longest noun starting at `tokens[i]`, if any.
pub(crate) fn noun_at(tokens: &[Token], i: usize) -> Option<NounMatch> {
    let nouns = &*NOUNS;
    let mut words = Vec::new();
    for t in tokens.iter().skip(i).take(nouns.longest) {
        match t.word() {
            Some(w) => words.push(w),
            None => break,
        }
    }
    (1..=words.len()).rev().find_map(|len| {
        let key = words[..len].join(" ");
        nouns.forms.get(&key).map(|&(noun, plural)| NounMatch { noun, plural, len })
    })
}

/// The furniture class with this id.
pub(crate) fn furniture_class(class: &str) -> Option<&'static FurnitureDef> {
    FURNITURE.iter().find(|f| f.class == class)
}

/// The room with this id.
pub(crate) fn room(id: &str) -> Option<&'static RoomDef> {
    ROOMS.iter().find(|r| r.id == id)
}

impl FurnitureDef {
    /// The class a piece named by this noun has when it stands in `room`:
    /// a "cabinet" in the kitchen is a kitchen cabinet.
    pub(crate) fn in_room(&'static self, room: &str) -> &'static FurnitureDef {
        self.in_room
            .iter()
            .find(|(r, _)| *r == room)
            .and_then(|(_, class)| furniture_class(class))
            .unwrap_or(self)
    }
}

/// The plural of a noun phrase: the head before "of" (`bags of chips`) or the last word.
pub(crate) fn plural(name: &str) -> String {
    match name.split_once(" of ") {
        Some((head, rest)) => format!("{} of {rest}", plural(head)),
        None => match name.rsplit_once(' ') {
            Some((first, last)) => format!("{first} {}", plural_word(last)),
            None => plural_word(name),
        },
    }
}

fn plural_word(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("elf") {
        return format!("{stem}elves");
    }
    if let Some(stem) = word.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if word.ends_with(['s', 'x', 'z']) || word.ends_with("ch") || word.ends_with("sh") {
        return format!("{word}es");
    }
    format!("{word}s")
}

/// The number a count word stands for: `two` → 2, `7` → 7, `a` → 1.
pub(crate) fn count_word(word: &str) -> Option<u32> {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    match word {
        "a" | "an" | "single" | "another" => Some(1),
        _ => WORDS
            .iter()
            .position(|w| *w == word)
            .and_then(|n| u32::try_from(n).ok())
            .or_else(|| word.parse().ok()),
    }
}

/// A position in a row, counted from the left unless the phrase says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ordinal {
    /// The n-th (1-based).
    Nth(u32),
    /// The last one.
    Last,
}

/// The ordinal an ordinal word stands for: `third` and `3rd` → 3, `last` → last.
pub(crate) fn ordinal_word(word: &str) -> Option<Ordinal> {
    const WORDS: [&str; 13] = [
        "zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
        "ninth", "tenth", "eleventh", "twelfth",
    ];
    if let Some(n) = WORDS.iter().position(|w| *w == word) {
        return u32::try_from(n).ok().filter(|&n| n > 0).map(Ordinal::Nth);
    }
    match word {
        "last" | "final" | "rightmost" => return Some(Ordinal::Last),
        "leftmost" => return Some(Ordinal::Nth(1)),
        _ => {}
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    let n: u32 = digits.parse().ok()?;
    let expected = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    (n > 0 && suffix == expected).then_some(Ordinal::Nth(n))
}

#[cfg(test)]
#[path = "lexicon_tests.rs"]
mod tests;
