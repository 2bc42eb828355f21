//! The nouns of MMToM-QA apartments: rooms, furniture and objects, with their synonyms
//! and plural forms (the words that count and order them are in [`super::numbers`]).
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

/// Rooms.
pub(crate) const ROOMS: &[RoomDef] = &[
    room_def("kitchen", &["kitchen"]),
    room_def(
        "living_room",
        &[
            "living room",
            "livingroom",
            "lounge",
            "sitting room",
            "family room",
        ],
    ),
    room_def("bedroom", &["bedroom", "bed room"]),
    room_def(
        "bathroom",
        &["bathroom", "bath room", "restroom", "washroom"],
    ),
    room_def("dining_room", &["dining room"]),
];

const fn room_def(id: &'static str, names: &'static [&'static str]) -> RoomDef {
    RoomDef { id, names }
}

/// A container that is not remapped by room.
const fn container(
    class: &'static str,
    family: &'static str,
    names: &'static [&'static str],
) -> FurnitureDef {
    furniture(class, family, Kind::Container, names)
}

/// A surface that is not remapped by room.
const fn surface(
    class: &'static str,
    family: &'static str,
    names: &'static [&'static str],
) -> FurnitureDef {
    furniture(class, family, Kind::Surface, names)
}

const fn furniture(
    class: &'static str,
    family: &'static str,
    kind: Kind,
    names: &'static [&'static str],
) -> FurnitureDef {
    FurnitureDef {
        class,
        family,
        kind,
        names,
        in_room: &[],
    }
}

/// Furniture classes. A bare head noun ("cabinet", "table") covers its family.
pub(crate) const FURNITURE: &[FurnitureDef] = &[
    container(
        "fridge",
        "fridge",
        &["fridge", "refrigerator", "fridge freezer"],
    ),
    container("microwave", "microwave", &["microwave", "microwave oven"]),
    container("stove", "stove", &["stove", "oven", "cooker"]),
    container("dishwasher", "dishwasher", &["dishwasher", "dish washer"]),
    container(
        "kitchen_cabinet",
        "cabinet",
        &["kitchen cabinet", "kitchen cupboard"],
    ),
    container(
        "bathroom_cabinet",
        "cabinet",
        &["bathroom cabinet", "bathroom cupboard", "medicine cabinet"],
    ),
    FurnitureDef {
        class: "cabinet",
        family: "cabinet",
        kind: Kind::Container,
        names: &["cabinet", "cupboard"],
        in_room: &[
            ("kitchen", "kitchen_cabinet"),
            ("bathroom", "bathroom_cabinet"),
        ],
    },
    container("wardrobe", "wardrobe", &["wardrobe"]),
    surface("kitchen_table", "table", &["kitchen table", "dining table"]),
    surface("coffee_table", "table", &["coffee table"]),
    FurnitureDef {
        class: "table",
        family: "table",
        kind: Kind::Surface,
        names: &["table"],
        in_room: &[("kitchen", "kitchen_table")],
    },
    surface("desk", "desk", &["desk"]),
    surface("sofa", "sofa", &["sofa", "couch", "settee"]),
    surface(
        "bookshelf",
        "bookshelf",
        &["bookshelf", "bookcase", "book shelf"],
    ),
    surface("bed", "bed", &["bed"]),
    surface(
        "nightstand",
        "nightstand",
        &["nightstand", "night stand", "bedside table"],
    ),
    surface("tv_stand", "tv_stand", &["tv stand"]),
    surface(
        "kitchen_counter",
        "counter",
        &["kitchen counter", "counter", "countertop"],
    ),
];

const fn object(class: &'static str, names: &'static [&'static str]) -> ObjectDef {
    ObjectDef { class, names }
}

/// Object classes: the twelve of MMToM-QA first, then other VirtualHome objects.
pub(crate) const OBJECTS: &[ObjectDef] = &[
    object("apple", &["apple"]),
    object("book", &["book", "novel"]),
    object("wine", &["bottle of wine", "wine bottle", "wine"]),
    object("wine_glass", &["wine glass", "wineglass", "glass of wine"]),
    object(
        "water_glass",
        &[
            "water glass",
            "waterglass",
            "glass of water",
            "drinking glass",
        ],
    ),
    object("dish_bowl", &["dish bowl", "dishbowl", "bowl"]),
    object(
        "chips",
        &[
            "bag of chips",
            "packet of chips",
            "bag of potato chips",
            "packet of potato chips",
            "potato chips",
            "chips",
            "bag of crisps",
            "crisps",
        ],
    ),
    object(
        "condiment_bottle",
        &[
            "condiment bottle",
            "bottle of condiment",
            "condimentbottle",
            "condiment",
        ],
    ),
    object(
        "remote_control",
        &["remote control", "remotecontrol", "tv remote", "remote"],
    ),
    object("cupcake", &["cupcake", "cup cake"]),
    object("salmon", &["salmon", "piece of salmon", "salmon fillet"]),
    object("plate", &["plate"]),
    object("mug", &["mug", "coffee mug"]),
    object("milk", &["milk", "bottle of milk", "carton of milk"]),
    object("juice", &["juice", "bottle of juice"]),
    object("bread", &["bread", "loaf of bread", "slice of bread"]),
    object("cereal", &["cereal", "box of cereal"]),
    object("pudding", &["pudding"]),
    object(
        "chocolate_syrup",
        &["chocolate syrup", "bottle of chocolate syrup"],
    ),
    object("banana", &["banana"]),
    object("towel", &["towel"]),
    object("toothbrush", &["toothbrush"]),
    object("cellphone", &["cellphone", "cell phone", "phone"]),
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
            // "living-room", "coffee-table": the hyphenated form is one token.
            if name.contains(' ') && !name.contains(" of ") {
                forms.entry(name.replace(' ', "-")).or_insert((noun, false));
                forms
                    .entry(plural(name).replace(' ', "-"))
                    .or_insert((noun, true));
            }
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
    let longest = forms
        .keys()
        .map(|k| k.split(' ').count())
        .max()
        .unwrap_or(1);
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
        nouns
            .forms
            .get(&key)
            .map(|&(noun, plural)| NounMatch { noun, plural, len })
    })
}

/// The furniture class with this id.
pub(crate) fn furniture_class(class: &str) -> Option<&'static FurnitureDef> {
    FURNITURE.iter().find(|f| f.class == class)
}

/// The room with this id.
#[cfg(test)]
pub(crate) fn room(id: &str) -> Option<&'static RoomDef> {
    ROOMS.iter().find(|r| r.id == id)
}

impl FurnitureDef {
    /// The room pieces of this class stand in, when it is always the same one: a kitchen
    /// for a fridge or a dishwasher, a bathroom for a bathroom cabinet.
    pub(crate) fn home_room(&self) -> Option<&'static str> {
        match self.class {
            "fridge" | "microwave" | "stove" | "dishwasher" | "kitchen_cabinet"
            | "kitchen_table" | "kitchen_counter" => Some("kitchen"),
            "bathroom_cabinet" => Some("bathroom"),
            _ => None,
        }
    }

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

#[cfg(test)]
#[path = "lexicon_tests.rs"]
mod tests;
