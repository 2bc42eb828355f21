//! The words generated stories are made of: bip's own lists, not the benchmark's.

/// Agents' names.
pub const NAMES: [&str; 24] = [
    "Ann", "Bo", "Cleo", "Dev", "Edda", "Finn", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena", "Milo",
    "Nell", "Otto", "Pia", "Quin", "Rosa", "Sami", "Tess", "Uma", "Vito", "Wren", "Yuri",
];

/// Rooms where things happen.
pub const ROOMS: [&str; 14] = [
    "attic",
    "boathouse",
    "cellar",
    "conservatory",
    "greenhouse",
    "kitchen",
    "larder",
    "library",
    "loft",
    "mudroom",
    "scullery",
    "shed",
    "studio",
    "veranda",
];

/// Rooms where agents gather between chapters.
pub const GATHERING: [&str; 4] = ["lobby", "common_room", "hallway", "parlour"];

/// Colours of containers.
pub const COLOURS: [&str; 6] = ["amber", "black", "grey", "orange", "purple", "white"];

/// Kinds of containers.
pub const CONTAINERS: [&str; 10] = [
    "bag", "barrel", "basket", "bin", "box", "cabinet", "case", "chest", "jar", "tin",
];

/// Objects that are moved about.
pub const OBJECTS: [&str; 16] = [
    "almond", "apricot", "beet", "button", "candle", "coin", "fig", "kiwi", "leek", "marble",
    "mango", "nutmeg", "parsnip", "quince", "radish", "walnut",
];
