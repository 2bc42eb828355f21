//! A validated theme: every room and class of the reader's vocabulary with its themed
//! noun, and the rewrite tables compiled from them.

use std::collections::HashMap;

use serde::Serialize;

use bip_episodes::import::mmtom::vocabulary::{self, is_grammar_word, NounKind, WORLD_NOUN};

use crate::error::ThemeError;
use crate::file::{parse, EntryFile};
use crate::ident::IdTable;
use crate::rewrite::{Replacement, Table};
use crate::word::Word;

/// One room, furniture class or object class and its themed nouns.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// Room, furniture or object.
    pub kind: NounKind,
    /// The base id: a room id or class (`kitchen_cabinet`).
    pub class: &'static str,
    /// The themed id (`hearth_cupboard`); the class itself when unmapped.
    pub id: String,
    /// The base names of the class in text, the usual one first.
    pub base_names: &'static [&'static str],
    /// The themed noun of the class, which its usual base name and every base name not
    /// in `forms` become.
    pub name: Word,
    /// Base names with a themed noun of their own (`refrigerator` → `ice chest`).
    pub forms: Vec<(&'static str, Word)>,
    /// Whether the theme maps this class (an unmapped class keeps its base words).
    pub mapped: bool,
}

impl Entry {
    /// The base name `name` stands for: the one spelled like the class (`wine` for the
    /// class `wine`, not `bottle of wine`), else the first.
    pub fn usual_name(&self) -> &'static str {
        usual_name(self.class, self.base_names)
    }

    /// The themed noun a base name becomes.
    pub fn themed(&self, base_name: &str) -> &Word {
        self.forms
            .iter()
            .find(|(b, _)| *b == base_name)
            .map_or(&self.name, |(_, w)| w)
    }
}

fn usual_name(class: &str, names: &'static [&'static str]) -> &'static str {
    names
        .iter()
        .copied()
        .find(|n| n.replace(' ', "_") == class)
        .or_else(|| names.first().copied())
        .unwrap_or("")
}

/// A thematic variant of the vocabulary, checked to be one-to-one.
#[derive(Debug, Clone)]
pub struct Theme {
    id: String,
    name: String,
    world: Word,
    entries: Vec<Entry>,
    pub(crate) tables: Tables,
}

/// The compiled rewrite tables of a theme.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tables {
    /// Base nouns → themed nouns.
    pub(crate) forward: Table,
    /// Themed nouns → base nouns.
    pub(crate) inverse: Table,
    /// Base nouns → the base noun they come back as (synonyms without a themed noun of
    /// their own come back as the class's usual name).
    pub(crate) canonical: Table,
    /// Base ids → themed ids.
    pub(crate) ids_forward: IdTable,
    /// Themed ids → base ids.
    pub(crate) ids_inverse: IdTable,
}

impl Theme {
    /// Reads and validates a theme file (`bip-theme/1` JSON; see the crate docs).
    ///
    /// Classes the file does not name keep their base words.
    ///
    /// # Errors
    /// [`ThemeError::Json`] or [`ThemeError::Field`] naming a malformed or unknown field;
    /// [`ThemeError::NotOneToOne`] when two base words would share a themed word;
    /// [`ThemeError::Collision`] when a themed word is a base word of another class;
    /// [`ThemeError::Reserved`] when a themed noun starts or ends with a word of the
    /// question grammar.
    pub fn from_json(text: &str) -> Result<Theme, ThemeError> {
        let file = parse(text)?;
        let mut mapped: HashMap<(NounKind, String), EntryFile> = HashMap::new();
        for e in file.entries {
            mapped.insert((e.kind, e.class.clone()), e);
        }
        let nouns = vocabulary::nouns();
        let mut entries = Vec::with_capacity(nouns.len());
        for noun in &nouns {
            let usual = usual_name(noun.class, noun.names);
            entries.push(match mapped.remove(&(noun.kind, noun.class.to_string())) {
                Some(e) => {
                    let mut forms = Vec::new();
                    for (base, word) in e.forms {
                        let Some(&name) = noun.names.iter().find(|n| **n == base) else {
                            return Err(ThemeError::Field {
                                path: format!("{}.forms.{base}", e.path),
                                reason: format!(
                                    "not a name of {} (its names: {})",
                                    noun.class,
                                    noun.names.join(", ")
                                ),
                            });
                        };
                        forms.push((name, word));
                    }
                    Entry {
                        kind: noun.kind,
                        class: noun.class,
                        id: e.name.id(),
                        base_names: noun.names,
                        name: e.name,
                        forms,
                        mapped: true,
                    }
                }
                // Unmapped: every base name stands for itself.
                None => Entry {
                    kind: noun.kind,
                    class: noun.class,
                    id: noun.class.to_string(),
                    base_names: noun.names,
                    name: Word::regular(usual),
                    forms: noun.names.iter().map(|&n| (n, Word::regular(n))).collect(),
                    mapped: false,
                },
            });
        }
        if let Some(((kind, class), e)) = mapped.into_iter().next() {
            let known: Vec<&str> = nouns
                .iter()
                .filter(|n| n.kind == kind)
                .map(|n| n.class)
                .collect();
            return Err(ThemeError::Field {
                path: e.path,
                reason: format!("unknown {class} (known: {})", known.join(", ")),
            });
        }
        let tables = compile(&file.world, &entries)?;
        Ok(Theme {
            id: file.id,
            name: file.name,
            world: file.world,
            entries,
            tables,
        })
    }

    /// Short name (`andersen`), used on the command line and in reports.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Title ("Andersen Fairy Tales").
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The noun for the whole world ("cottage" for "apartment").
    pub fn world(&self) -> &Word {
        &self.world
    }

    /// Every room and class of the vocabulary, rooms first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Whether the theme changes nothing (the Apartment theme).
    pub fn is_identity(&self) -> bool {
        self.world.singular == WORLD_NOUN && self.entries.iter().all(|e| !e.mapped)
    }

    /// The themed id of a room, class or id containing them (`kitchen_cabinet_3` →
    /// `hearth_cupboard_3`).
    pub fn apply_id(&self, id: &str) -> String {
        self.tables.ids_forward.rewrite(id)
    }

    /// The base id of a themed id: the inverse of [`Theme::apply_id`].
    pub fn invert_id(&self, id: &str) -> String {
        self.tables.ids_inverse.rewrite(id)
    }

    /// `text` with the base nouns a synonym without a themed noun of its own would come
    /// back as (`refrigerator` → `fridge` when the theme gives only `fridge` a noun):
    /// what [`Theme::invert_text`] of [`Theme::apply_text`] gives.
    pub fn canonical_text(&self, text: &str) -> String {
        self.tables.canonical.rewrite(text)
    }

    /// How many nouns of `text` are themed words of this theme and not base words: the
    /// evidence that `text` was written in it.
    pub fn themed_word_count(&self, text: &str) -> usize {
        if self.is_identity() {
            return 0;
        }
        self.tables
            .inverse
            .find(text)
            .iter()
            .filter(|(_, key)| !self.tables.forward.contains(key))
            .count()
    }

    /// The nouns of `text` this theme would replace, in order: base words, which a text
    /// written in the theme has few of (against many of its themed words).
    pub fn base_words(&self, text: &str) -> Vec<String> {
        self.tables.forward.changed(text)
    }
}

/// Builds the tables and checks that the theme is one-to-one and clear of the grammar.
fn compile(world: &Word, entries: &[Entry]) -> Result<Tables, ThemeError> {
    let mut t = Tables::default();
    let base_world = Word::regular(WORLD_NOUN);
    let base_owner = base_owners(&base_world, entries);
    for e in entries.iter().filter(|e| e.mapped) {
        check_entry(e, &base_owner)?;
    }
    if world.singular != WORLD_NOUN {
        check_clear(world, "world", "the world", &base_owner)?;
    }
    add(&mut t, &base_world, world, "the world")?;
    for e in entries {
        add_entry(&mut t, e)?;
    }
    Ok(t)
}

/// Who owns each base word and base id, for collisions.
fn base_owners(base_world: &Word, entries: &[Entry]) -> HashMap<String, String> {
    let mut base_owner: HashMap<String, String> = HashMap::new();
    for key in [&base_world.singular, &base_world.plural] {
        base_owner.insert(key.clone(), "the world".into());
    }
    for e in entries {
        for name in e.base_names {
            let w = Word::regular(name);
            base_owner
                .entry(w.singular)
                .or_insert_with(|| e.class.to_string());
            base_owner
                .entry(w.plural)
                .or_insert_with(|| e.class.to_string());
        }
        base_owner
            .entry(e.class.to_string())
            .or_insert_with(|| e.class.to_string());
    }
    base_owner
}

/// Checks that a mapped entry's words and id take no base word or id of another class.
fn check_entry(e: &Entry, base_owner: &HashMap<String, String>) -> Result<(), ThemeError> {
    let section = match e.kind {
        NounKind::Room => "rooms",
        NounKind::Furniture => "furniture",
        NounKind::Object => "objects",
    };
    let path = format!("{section}.{}", e.class);
    let mut themed: Vec<(&Word, String)> = vec![(&e.name, path.clone())];
    themed.extend(
        e.forms
            .iter()
            .map(|(b, w)| (w, format!("{path}.forms.{b}"))),
    );
    for (word, path) in themed {
        check_clear(word, &path, e.class, base_owner)?;
    }
    if let Some(owner) = base_owner.get(&e.id).filter(|o| *o != e.class) {
        return Err(ThemeError::Collision {
            path,
            form: e.id.clone(),
            class: owner.clone(),
        });
    }
    Ok(())
}

/// Adds an entry's nouns, forms and id to the tables.
fn add_entry(t: &mut Tables, e: &Entry) -> Result<(), ThemeError> {
    let usual = Word::regular(e.usual_name());
    add(t, &usual, &e.name, e.class)?;
    for (base, themed) in &e.forms {
        add(t, &Word::regular(base), themed, e.class)?;
    }
    // Base names without a noun of their own become the class's noun.
    for name in e.base_names {
        let base = Word::regular(name);
        let (themed, back) = match e.forms.iter().find(|(b, _)| b == name) {
            Some((_, w)) => (w, base.clone()),
            None => (&e.name, usual.clone()),
        };
        t.forward.insert(
            &base.singular,
            Replacement {
                text: themed.singular.clone(),
                article: Some(themed.article),
            },
        );
        t.forward.insert(
            &base.plural,
            Replacement {
                text: themed.plural.clone(),
                article: None,
            },
        );
        t.canonical.insert(
            &base.singular,
            Replacement {
                text: back.singular,
                article: Some(back.article),
            },
        );
        t.canonical.insert(
            &base.plural,
            Replacement {
                text: back.plural,
                article: None,
            },
        );
    }
    if let Some(other) = t.ids_inverse.insert(&e.id, e.class) {
        if other != e.class {
            return Err(ThemeError::NotOneToOne {
                form: e.id.clone(),
                first: other.to_string(),
                second: e.class.to_string(),
            });
        }
    }
    t.ids_forward.insert(e.class, &e.id);
    Ok(())
}

/// Maps `base` to `themed` and back (singular and plural), failing when the themed word
/// already stands for another base word.
fn add(t: &mut Tables, base: &Word, themed: &Word, owner: &str) -> Result<(), ThemeError> {
    let pairs = [
        (
            &base.singular,
            &themed.singular,
            Some(themed.article),
            Some(base.article),
        ),
        (&base.plural, &themed.plural, None, None),
    ];
    for (b, th, article, base_article) in pairs {
        t.forward.insert(
            b,
            Replacement {
                text: th.clone(),
                article,
            },
        );
        let back = Replacement {
            text: b.clone(),
            article: base_article,
        };
        if let Some(existing) = t.inverse.insert(th, back.clone()) {
            if *existing != back {
                return Err(ThemeError::NotOneToOne {
                    form: th.clone(),
                    first: format!("\"{}\"", existing.text),
                    second: format!("\"{b}\" ({owner})"),
                });
            }
        }
    }
    Ok(())
}

/// A themed noun must not be another class's base word, nor start or end with a word
/// the grammar reads.
fn check_clear(
    word: &Word,
    path: &str,
    owner: &str,
    base_owner: &HashMap<String, String>,
) -> Result<(), ThemeError> {
    for form in [&word.singular, &word.plural] {
        if let Some(other) = base_owner.get(form).filter(|o| *o != owner) {
            return Err(ThemeError::Collision {
                path: path.to_string(),
                form: form.clone(),
                class: other.clone(),
            });
        }
        let words: Vec<&str> = form.split(' ').collect();
        for w in [words.first(), words.last()].into_iter().flatten() {
            if is_grammar_word(w) {
                return Err(ThemeError::Reserved {
                    path: path.to_string(),
                    word: (*w).to_string(),
                });
            }
        }
    }
    Ok(())
}
