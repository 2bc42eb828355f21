//! Themed episodes: every room, furniture and object id and class of a `bip-episode/1`
//! file renamed, and its wording rewritten.

use serde_json::Value;

use bip_episodes::json::{
    ActionFile, BeliefFile, DoorFile, EpisodeFile, OptionFile, PropositionFile, QuestionFile,
    WorldFile,
};

use crate::error::ThemeError;
use crate::theme::Theme;

impl Theme {
    /// `file` in the theme's words: ids and classes renamed ([`Theme::apply_id`]), the
    /// description and the questions' wording rewritten ([`Theme::apply_text`]). The
    /// episode id and the agent's name are kept.
    ///
    /// # Errors
    /// [`ThemeError::NotReversible`] naming the field whose value would not come back
    /// from [`Theme::invert_episode`] (an id that already uses a themed word, say).
    pub fn apply_episode(&self, file: &EpisodeFile) -> Result<EpisodeFile, ThemeError> {
        let themed = map_file(file, &|id| self.apply_id(id), &|text| {
            self.tables.forward.rewrite(text)
        });
        let back = self.invert_episode(&themed);
        let expected = map_file(file, &|id| id.to_string(), &|text| {
            self.canonical_text(text)
        });
        let (expected, back) = (to_value(&expected), to_value(&back));
        match first_difference(&expected, &back, String::new()) {
            None => Ok(themed),
            Some((location, original, round_trip)) => Err(ThemeError::NotReversible {
                location,
                original,
                round_trip,
            }),
        }
    }

    /// A themed episode back in the base words: the inverse of [`Theme::apply_episode`].
    pub fn invert_episode(&self, file: &EpisodeFile) -> EpisodeFile {
        map_file(file, &|id| self.invert_id(id), &|text| {
            self.invert_text(text)
        })
    }
}

fn to_value(file: &EpisodeFile) -> Value {
    serde_json::to_value(file).unwrap_or(Value::Null)
}

/// The JSON path and both values where `a` and `b` first differ.
fn first_difference(a: &Value, b: &Value, path: String) -> Option<(String, String, String)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
            x.iter().find_map(|(k, v)| {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match y.get(k) {
                    Some(w) => first_difference(v, w, p),
                    None => Some((p, v.to_string(), "(missing)".into())),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, format!("{path}[{i}]"))),
        _ if a == b => None,
        _ => Some((path, plain(a), plain(b))),
    }
}

fn plain(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// `file` with every id passed through `id` and every piece of wording through `text`.
fn map_file(
    file: &EpisodeFile,
    id: &dyn Fn(&str) -> String,
    text: &dyn Fn(&str) -> String,
) -> EpisodeFile {
    let mut f = file.clone();
    if let Some(s) = &mut f.description {
        *s = text(s);
    }
    map_world(&mut f.world, id);
    f.agent.start = id(&f.agent.start);
    for goal in f.agent.goals.iter_mut().flatten() {
        *goal = id(goal);
    }
    for action in &mut f.actions {
        match action {
            ActionFile::WalkTo(x)
            | ActionFile::Open(x)
            | ActionFile::Close(x)
            | ActionFile::Grab(x) => *x = id(x),
            ActionFile::Put { object, onto } => {
                *object = id(object);
                *onto = id(onto);
            }
        }
    }
    for question in &mut f.questions {
        map_question(question, id, text);
    }
    f
}

/// Every id of the world passed through `id`.
fn map_world(w: &mut WorldFile, id: &dyn Fn(&str) -> String) {
    let opt_id = |t: &mut Option<String>| {
        if let Some(s) = t {
            *s = id(s);
        }
    };
    w.rooms.iter_mut().for_each(|r| *r = id(r));
    for door in w.doors.iter_mut().flatten() {
        let rooms = match door {
            DoorFile::Pair(rooms) => rooms,
            DoorFile::Weighted { between, .. } => between,
        };
        rooms.iter_mut().for_each(|r| *r = id(r));
    }
    for piece in &mut w.furniture {
        piece.id = id(&piece.id);
        piece.room = id(&piece.room);
        opt_id(&mut piece.class);
    }
    for object in &mut w.objects {
        object.id = id(&object.id);
        object.at = id(&object.at);
        opt_id(&mut object.class);
    }
    for alternative in &mut w.alternatives {
        alternative.objects = std::mem::take(&mut alternative.objects)
            .into_iter()
            .map(|(object, at)| (id(&object), id(&at)))
            .collect();
    }
}

/// The question's wording through `text` and the ids its options name through `id`.
fn map_question(
    question: &mut QuestionFile,
    id: &dyn Fn(&str) -> String,
    text: &dyn Fn(&str) -> String,
) {
    let opt_text = |t: &mut Option<String>| {
        if let Some(s) = t {
            *s = text(s);
        }
    };
    let opt_id = |t: &mut Option<String>| {
        if let Some(s) = t {
            *s = id(s);
        }
    };
    let belief = |b: &mut BeliefFile| {
        b.object = id(&b.object);
        b.container = id(&b.container);
    };
    opt_text(&mut question.text);
    for OptionFile {
        text: t,
        goal,
        belief: b,
        given,
    } in &mut question.options
    {
        opt_text(t);
        opt_id(goal);
        b.iter_mut().for_each(belief);
        if let Some(PropositionFile { goal, belief: b }) = given {
            opt_id(goal);
            b.iter_mut().for_each(belief);
        }
    }
}

#[cfg(test)]
mod tests {
    use bip_episodes::json::EpisodeFile;
    use bip_episodes::Episode;

    use crate::Theme;

    const EPISODE: &str = r#"{
      "format": "bip-episode/1", "id": "t",
      "description": "Ann looks for the wine in the kitchen cabinet.",
      "world": {
        "rooms": ["kitchen", "living_room"],
        "doors": [{"between": ["kitchen", "living_room"], "distance": 2.0}],
        "furniture": [
          {"id": "kitchen_cabinet_1", "room": "kitchen", "kind": "container"},
          {"id": "fridge", "room": "kitchen", "kind": "container"},
          {"id": "living_room_coffee_table", "class": "coffee_table", "room": "living_room", "kind": "surface"}
        ],
        "objects": [{"id": "wine_1", "at": "fridge"}, {"id": "remote_control_1", "at": "living_room_coffee_table"}]
      },
      "agent": {"name": "Ann", "start": "living_room", "goals": ["wine", "remote_control"]},
      "actions": [{"walk_to": "kitchen"}, {"walk_to": "kitchen_cabinet_1"}, {"open": "kitchen_cabinet_1"}],
      "questions": [{"text": "Where does Ann think the wine is?", "options": [
        {"text": "In the fridge.", "belief": {"object": "wine", "container": "fridge", "inside": true}, "given": {"goal": "wine"}},
        {"text": "Not in the fridge.", "belief": {"object": "wine", "container": "fridge", "inside": false}, "given": {"goal": "wine"}}],
        "expected": "b"}]
    }"#;

    fn file() -> EpisodeFile {
        serde_json::from_str(EPISODE).expect("valid")
    }

    #[test]
    fn episodes_round_trip_through_every_theme_and_stay_valid() {
        let original = serde_json::to_value(file()).expect("serialises");
        for theme in crate::builtins() {
            let themed = theme
                .apply_episode(&file())
                .unwrap_or_else(|e| panic!("{}: {e}", theme.id()));
            Episode::from_file(themed.clone(), "t")
                .unwrap_or_else(|e| panic!("{}: {e}", theme.id()));
            let back = serde_json::to_value(theme.invert_episode(&themed)).expect("serialises");
            assert_eq!(back, original, "{}", theme.id());
        }
    }

    #[test]
    fn ids_classes_and_wording_are_renamed() {
        let theme = Theme::builtin("andersen").expect("built in");
        let themed = theme.apply_episode(&file()).expect("reversible");
        assert_eq!(themed.world.rooms, ["hearth", "parlour"]);
        assert_eq!(themed.world.furniture[0].id, "hearth_cupboard_1");
        assert_eq!(themed.world.furniture[2].id, "parlour_tea_table");
        assert_eq!(
            themed.world.furniture[2].class.as_deref(),
            Some("tea_table")
        );
        assert_eq!(themed.world.objects[1].id, "magic_wand_1");
        assert_eq!(
            themed.agent.goals.as_deref(),
            Some(&["mead".to_string(), "magic_wand".to_string()][..])
        );
        assert_eq!(
            themed.description.as_deref(),
            Some("Ann looks for the mead in the hearth cupboard.")
        );
        let belief = themed.questions[0].options[0]
            .belief
            .as_ref()
            .expect("belief");
        assert_eq!(
            (belief.object.as_str(), belief.container.as_str()),
            ("mead", "cooling_box")
        );
    }

    #[test]
    fn an_id_already_in_the_theme_is_refused_with_its_path() {
        let theme = Theme::builtin("andersen").expect("built in");
        let mut f = file();
        f.world.objects[0].id = "mead_1".into();
        f.actions.clear();
        let e = theme.apply_episode(&f).unwrap_err().to_string();
        assert!(e.starts_with("world.objects[0].id"), "{e}");
    }
}
