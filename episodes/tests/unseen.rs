//! The MMToM reader on text written for these tests, not taken from MMToM-QA: every case
//! of `tests/data/mmtom-unseen/*.jsonl` (see its README) must give the reading it states.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{json, Value};

use bip_episodes::import::mmtom::read_text;
use bip_episodes::json::{EpisodeFile, OptionFile, PropositionFile};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    class: String,
    scene: String,
    agent: Option<String>,
    narrative: Option<String>,
    question: Option<String>,
    expect: Expect,
    /// The MMToM-QA type of a whole question, for accuracy runs (not read here).
    #[serde(rename = "type")]
    #[allow(dead_code)]
    kind: Option<Value>,
    /// Its correct option, for accuracy runs (not read here).
    #[allow(dead_code)]
    answer: Option<String>,
}

/// Where objects start: furniture id → object classes (sorted).
type Placement = BTreeMap<String, Vec<String>>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    furniture: Option<Vec<String>>,
    objects: Option<Placement>,
    worlds: Option<Vec<Placement>>,
    actions: Option<Vec<String>>,
    options: Option<Vec<Value>>,
    error: Option<String>,
}

const CLASSES: &[&str] = &[
    "verb",
    "reference",
    "several-places",
    "plural",
    "exception",
    "absent-goal",
    "paraphrase",
    "refuse",
];

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/mmtom-unseen")
}

fn cases(file: &str) -> Vec<Case> {
    let path = data_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// The room the default narrative starts the agent in: the first room the scene names.
fn first_room(scene: &str) -> &'static str {
    let lower = scene.to_lowercase();
    [
        "kitchen",
        "living room",
        "bedroom",
        "bathroom",
        "dining room",
    ]
    .into_iter()
    .filter_map(|r| lower.find(r).map(|at| (at, r)))
    .min()
    .map_or("kitchen", |(_, r)| r)
}

fn text_of(case: &Case) -> String {
    let agent = case.agent.as_deref().unwrap_or("Alex");
    let narrative = case
        .narrative
        .clone()
        .unwrap_or_else(|| format!("{agent} is in the {}.", first_room(&case.scene)));
    let question = case.question.clone().unwrap_or_else(|| {
        format!(
            "Which one of the following statements is more likely to be true? \
             (a) {agent} has been trying to get an apple. (b) {agent} has been trying to get \
             a plate. Please respond with either a or b."
        )
    });
    format!(
        "What's inside the apartment: {}\nActions taken by {agent}: {narrative}\nQuestion: {question}",
        case.scene
    )
}

/// Every starting placement the reading allows, without repeats, in a stable order.
fn worlds(file: &EpisodeFile) -> Vec<Placement> {
    let class_of: BTreeMap<&str, &str> = file
        .world
        .objects
        .iter()
        .map(|o| (o.id.as_str(), o.class.as_deref().unwrap_or(o.id.as_str())))
        .collect();
    let placement = |overrides: &BTreeMap<String, String>| {
        let mut map = Placement::new();
        for o in &file.world.objects {
            let at = overrides.get(&o.id).unwrap_or(&o.at);
            map.entry(at.clone())
                .or_default()
                .push(class_of[o.id.as_str()].to_string());
        }
        map.values_mut().for_each(|v| v.sort());
        map
    };
    let mut all = vec![placement(&BTreeMap::new())];
    for alternative in &file.world.alternatives {
        all.push(placement(&alternative.objects));
    }
    all.sort();
    all.dedup();
    all
}

fn sorted(mut p: Placement) -> Placement {
    p.values_mut().for_each(|v| v.sort());
    p
}

fn proposition_json(
    goal: &Option<String>,
    belief: &Option<bip_episodes::json::BeliefFile>,
) -> Value {
    match (goal, belief) {
        (Some(g), _) => json!({ "goal": g }),
        (None, Some(b)) => json!({ "belief": b.object, "at": b.container, "inside": b.inside }),
        (None, None) => json!({}),
    }
}

fn option_json(o: &OptionFile) -> Value {
    let mut v = proposition_json(&o.goal, &o.belief);
    if let Some(PropositionFile { goal, belief }) = &o.given {
        v["given"] = proposition_json(goal, belief);
    }
    v
}

fn action_text(file: &EpisodeFile, action: &bip_episodes::json::ActionFile) -> String {
    use bip_episodes::json::ActionFile;
    let object = |id: &str| file.world.objects.iter().find(|o| o.id == id);
    match action {
        // A walk to an object is a walk to where it is (objects do not move in MMToM text
        // before the agent takes them).
        ActionFile::WalkTo(id) => match object(id) {
            Some(o) => format!("walk_to {}", o.at),
            None => format!("walk_to {id}"),
        },
        ActionFile::Open(id) => format!("open {id}"),
        ActionFile::Close(id) => format!("close {id}"),
        ActionFile::Grab(id) => format!(
            "grab {}",
            object(id)
                .and_then(|o| o.class.clone())
                .unwrap_or_else(|| id.clone())
        ),
        ActionFile::Put { object, onto } => format!("put {object} {onto}"),
    }
}

/// What is wrong with the reading of `case`, if anything.
fn check(case: &Case) -> Option<String> {
    let result = read_text(&text_of(case), &case.id, None, None);
    let expect = &case.expect;
    if let Some(words) = &expect.error {
        return match result {
            Ok(_) => Some(format!("read, but must be refused naming \"{words}\"")),
            Err(e) if e.to_string().contains(words.as_str()) => None,
            Err(e) => Some(format!("refused without naming \"{words}\": {e}")),
        };
    }
    let file = match result {
        Ok(file) => file,
        Err(e) => return Some(format!("refused: {e}")),
    };
    let mut problems = Vec::new();
    if let Some(expected) = &expect.furniture {
        let mut got: Vec<&str> = file.world.furniture.iter().map(|f| f.id.as_str()).collect();
        let mut want: Vec<&str> = expected.iter().map(String::as_str).collect();
        got.sort_unstable();
        want.sort_unstable();
        if got != want {
            problems.push(format!("furniture {got:?}, expected {want:?}"));
        }
    }
    let got_worlds = worlds(&file);
    if let Some(objects) = &expect.objects {
        let want = sorted(objects.clone());
        if got_worlds != [want.clone()] {
            problems.push(format!("objects {got_worlds:?}, expected {want:?}"));
        }
    }
    if let Some(expected) = &expect.worlds {
        let mut want: Vec<Placement> = expected.iter().cloned().map(sorted).collect();
        want.sort();
        want.dedup();
        if got_worlds != want {
            problems.push(format!("worlds {got_worlds:?}, expected {want:?}"));
        }
    }
    if let Some(expected) = &expect.actions {
        let got: Vec<String> = file.actions.iter().map(|a| action_text(&file, a)).collect();
        if &got != expected {
            problems.push(format!("actions {got:?}, expected {expected:?}"));
        }
    }
    if let Some(expected) = &expect.options {
        let got: Vec<Value> = file
            .questions
            .first()
            .map(|q| q.options.iter().map(option_json).collect())
            .unwrap_or_default();
        if &got != expected {
            problems.push(format!("options {got:?}, expected {expected:?}"));
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

fn run(file: &str) {
    let cases = cases(file);
    let mut failures = Vec::new();
    let mut ids = std::collections::BTreeSet::new();
    for case in &cases {
        assert!(
            ids.insert(case.id.as_str()),
            "{file}: repeated id {}",
            case.id
        );
        assert!(
            CLASSES.contains(&case.class.as_str()),
            "{file}: {}: unknown class {}",
            case.id,
            case.class
        );
        if let Some(problem) = check(case) {
            failures.push(format!("{} [{}]: {problem}", case.id, case.class));
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {} cases read wrongly:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn scene_sentences_written_for_the_tests_read_as_stated() {
    run("scene.jsonl");
}

#[test]
fn narratives_written_for_the_tests_read_as_stated() {
    run("narrative.jsonl");
}

#[test]
fn questions_written_for_the_tests_read_as_stated() {
    run("question.jsonl");
}

#[test]
fn whole_questions_of_one_writer_read_as_stated() {
    run("whole-a.jsonl");
}

#[test]
fn whole_questions_of_another_writer_read_as_stated() {
    run("whole-b.jsonl");
}

#[test]
fn whole_questions_in_the_benchmark_style_read_as_stated() {
    run("whole-c.jsonl");
}
