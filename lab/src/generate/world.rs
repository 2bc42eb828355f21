//! Random apartments in the MMToM-QA / VirtualHome vocabulary.

use bip_episodes::json::{DoorFile, FurnitureFile, KindFile, ObjectFile, WorldFile};

use crate::rng::Rng;

/// The rooms of every generated apartment.
pub const ROOMS: [&str; 4] = ["kitchen", "living_room", "bedroom", "bathroom"];

/// Object classes that agents look for.
pub const OBJECT_CLASSES: [&str; 12] = [
    "apple",
    "book",
    "chips",
    "condiment_bottle",
    "cupcake",
    "dish_bowl",
    "plate",
    "remote_control",
    "salmon",
    "water_glass",
    "wine",
    "wine_glass",
];

/// (room, furniture class, kind, probability of being present).
const FURNITURE: [(&str, &str, KindFile, f64); 16] = [
    ("kitchen", "fridge", KindFile::Container, 1.0),
    ("kitchen", "microwave", KindFile::Container, 0.8),
    ("kitchen", "stove", KindFile::Container, 0.8),
    ("kitchen", "dishwasher", KindFile::Container, 0.4),
    ("kitchen", "kitchen_table", KindFile::Surface, 1.0),
    ("living_room", "cabinet", KindFile::Container, 0.8),
    ("living_room", "coffee_table", KindFile::Surface, 0.9),
    ("living_room", "sofa", KindFile::Surface, 0.8),
    ("living_room", "desk", KindFile::Surface, 0.5),
    ("bedroom", "coffee_table", KindFile::Surface, 0.7),
    ("bedroom", "desk", KindFile::Surface, 0.6),
    ("bedroom", "cabinet", KindFile::Container, 0.4),
    ("bedroom", "sofa", KindFile::Surface, 0.3),
    ("bathroom", "bathroom_cabinet", KindFile::Container, 1.0),
    ("bathroom", "bathtub", KindFile::Surface, 0.0),
    ("bathroom", "towel_rack", KindFile::Surface, 0.0),
];

/// A random apartment: the four rooms joined through the living room (plus, at random,
/// a kitchen–bedroom door), MMToM-style furniture with 2–8 kitchen cabinets, and 6–10 object
/// classes with one to three instances each, placed uniformly over the furniture.
pub fn random_world(rng: &mut Rng) -> WorldFile {
    let mut furniture: Vec<FurnitureFile> = Vec::new();
    let mut add = |room: &str, class: &str, kind: KindFile| {
        let taken = furniture
            .iter()
            .any(|f| f.class.as_deref() == Some(class) || f.id == class);
        let id = if taken {
            format!("{room}_{class}")
        } else {
            class.to_string()
        };
        furniture.push(FurnitureFile {
            id,
            class: Some(class.to_string()),
            room: room.to_string(),
            kind,
            open: false,
        });
    };
    for &(room, class, kind, p) in &FURNITURE {
        if rng.chance(p) {
            add(room, class, kind);
        }
    }
    for i in 1..=rng.range(2, 8) {
        furniture.push(FurnitureFile {
            id: format!("kitchen_cabinet_{i}"),
            class: Some("kitchen_cabinet".to_string()),
            room: "kitchen".to_string(),
            kind: KindFile::Container,
            open: false,
        });
    }
    if !furniture.iter().any(|f| f.room == "bedroom") {
        furniture.push(FurnitureFile {
            id: "bedroom_desk".to_string(),
            class: Some("desk".to_string()),
            room: "bedroom".to_string(),
            kind: KindFile::Surface,
            open: false,
        });
    }
    let mut classes: Vec<&str> = OBJECT_CLASSES.to_vec();
    rng.shuffle(&mut classes);
    classes.truncate(rng.range(6, 10));
    classes.sort_unstable();
    let mut objects = Vec::new();
    for class in classes {
        let count = match rng.unit() {
            u if u < 0.6 => 1,
            u if u < 0.9 => 2,
            _ => 3,
        };
        for n in 1..=count {
            let at = &furniture[rng.below(furniture.len())];
            objects.push(ObjectFile {
                id: format!("{class}_{n}"),
                class: None,
                at: at.id.clone(),
            });
        }
    }
    let mut doors: Vec<DoorFile> = ["kitchen", "bedroom", "bathroom"]
        .iter()
        .map(|room| DoorFile::Pair(["living_room".to_string(), room.to_string()]))
        .collect();
    if rng.chance(0.3) {
        doors.push(DoorFile::Pair([
            "kitchen".to_string(),
            "bedroom".to_string(),
        ]));
    }
    WorldFile {
        rooms: ROOMS.iter().map(|r| r.to_string()).collect(),
        doors: Some(doors),
        furniture,
        objects,
        alternatives: Vec::new(),
    }
}
