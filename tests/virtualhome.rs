//! `bip import virtualhome` and `bip export virtualhome` on VirtualHome's own scene 1
//! (`tests/data/virtualhome/TestScene1_graph.json`, copied unchanged) and on small
//! malformed graphs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::Value;

use bip::engine::{infer_episode, BatchOptions, PlannerPolicy};
use bip::episodes::import::virtualhome::{
    export, import, read_graph, GraphFile, ImportOptions, Imported, NodeId, NoteKind,
    VirtualHomeError, SCENERY,
};
use bip::episodes::{Episode, FurnitureKind};

use crate::util::{bip, examples, json, root, TempDir};

fn data(name: &str) -> PathBuf {
    root().join("tests/data/virtualhome").join(name)
}

fn text(name: &str) -> String {
    std::fs::read_to_string(data(name)).expect("fixture readable")
}

fn scene1() -> GraphFile {
    read_graph(&text("TestScene1_graph.json")).expect("scene 1 is a graph")
}

/// Scene 1 as raw JSON, to check the importer against the file itself.
struct Raw {
    nodes: BTreeMap<u64, Value>,
    edges: Vec<(u64, String, u64)>,
}

impl Raw {
    fn load() -> Self {
        let value: Value = serde_json::from_str(&text("TestScene1_graph.json")).expect("json");
        let nodes = value["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .map(|n| (n["id"].as_u64().expect("id"), n.clone()))
            .collect();
        let edges = value["edges"]
            .as_array()
            .expect("edges")
            .iter()
            .map(|e| {
                (
                    e["from_id"].as_u64().expect("from"),
                    e["relation_type"].as_str().expect("relation").to_string(),
                    e["to_id"].as_u64().expect("to"),
                )
            })
            .collect();
        Self { nodes, edges }
    }

    fn ids_where(&self, test: impl Fn(&Value) -> bool) -> BTreeSet<u64> {
        self.nodes
            .iter()
            .filter(|(_, n)| test(n))
            .map(|(&id, _)| id)
            .collect()
    }
}

fn has(node: &Value, property: &str) -> bool {
    node["properties"]
        .as_array()
        .is_some_and(|ps| ps.iter().any(|p| p == property))
}

fn category(node: &Value) -> &str {
    node["category"].as_str().unwrap_or_default()
}

/// The node id behind each episode id.
fn node_of(imported: &Imported) -> BTreeMap<String, u64> {
    imported
        .names
        .iter()
        .map(|(id, name)| (name.clone(), id.0))
        .collect()
}

#[test]
fn scene1_rooms_furniture_and_objects_are_where_the_graph_puts_them() {
    let raw = Raw::load();
    let imported = import(&scene1(), None, &ImportOptions::default()).expect("scene 1 imports");
    let world = imported.episode.world();
    let node = node_of(&imported);
    let id = |name: &str| node[name];

    let rooms: Vec<&str> = world.rooms.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(rooms, ["bathroom", "bedroom", "kitchen", "livingroom"]);

    // Every CAN_OPEN + CONTAINERS node (that is not itself grabbable) is a container.
    let containers: BTreeSet<u64> = world
        .furniture
        .iter()
        .filter(|f| f.kind == FurnitureKind::Container)
        .map(|f| id(&f.name))
        .collect();
    let expected =
        raw.ids_where(|n| has(n, "CAN_OPEN") && has(n, "CONTAINERS") && !has(n, "GRABBABLE"));
    assert_eq!(containers, expected);
    assert_eq!(containers.len(), 8);

    // Every SURFACES piece of furniture is a surface; the sink (CONTAINERS without
    // CAN_OPEN) and the shelves and counters objects lie on are surfaces too.
    let surfaces: BTreeSet<u64> = world
        .furniture
        .iter()
        .filter(|f| f.kind == FurnitureKind::Surface)
        .map(|f| id(&f.name))
        .collect();
    let with_surfaces = raw.ids_where(|n| {
        has(n, "SURFACES") && !has(n, "GRABBABLE") && !SCENERY.contains(&category(n))
    });
    assert_eq!(with_surfaces.len(), 20);
    assert!(with_surfaces.is_subset(&surfaces));
    assert!(surfaces.contains(&228), "the sink");
    let implied: BTreeSet<u64> = imported
        .report
        .of(NoteKind::ImpliedSurface)
        .flat_map(|n| n.nodes.iter().map(|id| id.0))
        .collect();
    assert_eq!(surfaces.len(), with_surfaces.len() + 1 + implied.len());
    assert_eq!(surfaces.len(), 32);

    // Every GRABBABLE node is an object in or on a place its own edges name, or is
    // reported as having none.
    let grabbable = raw.ids_where(|n| has(n, "GRABBABLE"));
    let unlocated: BTreeSet<u64> = imported
        .report
        .of(NoteKind::Unlocated)
        .flat_map(|n| n.nodes.iter().map(|id| id.0))
        .collect();
    let objects: BTreeSet<u64> = world.objects.iter().map(|o| id(&o.name)).collect();
    assert_eq!(grabbable.len(), 129);
    assert_eq!(objects.len(), 101);
    assert_eq!(&objects | &unlocated, grabbable);
    assert!(objects.is_disjoint(&unlocated));
    for object in &world.objects {
        let (from, to) = (id(&object.name), id(&world.furniture(object.start).name));
        assert!(
            raw.edges
                .iter()
                .any(|(a, r, b)| (*a, *b) == (from, to) && (r == "INSIDE" || r == "ON")),
            "{} ({from}) at {to}: no INSIDE/ON edge says so",
            object.name
        );
    }

    // Named nodes.
    let fridge = world
        .furniture_by_name(&imported.names[&NodeId(285)])
        .expect("fridge");
    let fridge = world.furniture(fridge);
    assert_eq!(fridge.name, "fridge");
    assert_eq!(world.rooms[fridge.room.index()].name, "kitchen");
    assert_eq!(fridge.kind, FurnitureKind::Container);
    assert!(!fridge.open_at_start, "CLOSED");
    let at = |node: u64| {
        let o = world
            .object_by_name(&imported.names[&NodeId(node)])
            .expect("imported");
        id(&world.furniture(world.object(o).start).name)
    };
    // The apple is INSIDE livingroom and sofa 349, and ON coffee_table 352: on the table.
    assert_eq!(imported.names[&NodeId(418)], "apple_1");
    assert_eq!(at(418), 352);
    assert_eq!(imported.names[&NodeId(352)], "coffee_table_2");
    assert_eq!(
        at(294),
        293,
        "the plate INSIDE the microwave, not ON the counter"
    );
    assert_eq!(
        at(163),
        164,
        "the mouse on the mouse mat, which is on the desk"
    );
    assert_eq!(at(269), 229, "the book INSIDE the bookshelf");
    assert_eq!(at(434), 396, "the folder ON the cabinet goes inside it");
    assert!(imported.report.mentions(NoteKind::OnContainer, NodeId(434)));
    assert!(
        imported.report.mentions(NoteKind::Unlocated, NodeId(44)),
        "a towel in the room only"
    );
    assert!(
        imported
            .report
            .mentions(NoteKind::OpenableNotContainer, NodeId(291)),
        "the stove"
    );
    assert!(
        imported
            .report
            .mentions(NoteKind::AssumedClosed, NodeId(96)),
        "the garbage can"
    );
    assert!(imported.report.mentions(NoteKind::Numbered, NodeId(419)));
    assert!(
        imported.report.mentions(NoteKind::NotModelled, NodeId(188)),
        "a cupcake, not GRABBABLE"
    );
    assert_eq!(
        imported.episode.agent().start.index(),
        0,
        "character 63 is in the bathroom"
    );

    // Rooms are joined where a door is BETWEEN them or their boxes share a wall, at
    // centre distance / 2.5 m.
    let doors = imported.file.world.doors.as_ref().expect("doors");
    let pairs: Vec<(String, String, f64)> = doors
        .iter()
        .map(|d| match serde_json::to_value(d).expect("door") {
            Value::Object(o) => (
                o["between"][0].as_str().unwrap_or_default().to_string(),
                o["between"][1].as_str().unwrap_or_default().to_string(),
                o["distance"].as_f64().unwrap_or(1.0),
            ),
            other => panic!("{other}"),
        })
        .collect();
    let expected = [
        ("bathroom", "bedroom", 2.9),
        ("bathroom", "kitchen", 2.91),
        ("bedroom", "kitchen", 2.99),
        ("kitchen", "livingroom", 2.25),
    ];
    assert_eq!(pairs.len(), expected.len());
    for ((a, b, d), (ea, eb, ed)) in pairs.iter().zip(expected) {
        assert_eq!((a.as_str(), b.as_str()), (ea, eb));
        assert!((d - ed).abs() < 1e-9, "{a}-{b}: {d}");
    }
}

#[test]
fn a_scene1_program_imports_and_infer_answers_its_goal_question() {
    let dir = TempDir::new();
    let out = dir.path().join("scene1.json");
    let run = bip([
        "import".as_ref(),
        "virtualhome".as_ref(),
        "--graph".as_ref(),
        data("TestScene1_graph.json").as_os_str(),
        "--script".as_ref(),
        data("TestScene1_script.txt").as_os_str(),
        "--goals".as_ref(),
        "apple,folder,salmon,remote_control,cellphone".as_ref(),
        "--ask-goal".as_ref(),
        "--ask-belief".as_ref(),
        "folder:fridge".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "imported 4 rooms, 8 containers, 32 surfaces, 101 objects, 9 actions, 2 questions"
        ),
        "{stderr}"
    );
    assert!(
        stderr
            .contains("bip: note: folder (node 434): ON the container cabinet 396: put inside it"),
        "{stderr}"
    );
    let report = json(&bip(["infer".as_ref(), out.as_os_str(), "--json".as_ref()]));
    let questions = report["episodes"][0]["questions"]
        .as_array()
        .expect("questions");
    assert_eq!(questions[0]["id"], "goal");
    assert_eq!(
        questions[0]["answer"], "b",
        "folder is the second candidate: {}",
        questions[0]
    );
    assert_eq!(questions[1]["id"], "belief-folder-fridge");
    assert_eq!(
        questions[1]["answer"], "b",
        "it saw the fridge empty: {}",
        questions[1]
    );

    // The same through the library, with the goal asked half-way: after the empty fridge
    // the agent walks on to the cabinet, which only an agent after something not yet
    // seen would do.
    let options = ImportOptions {
        goals: Some(vec![
            "apple".into(),
            "folder".into(),
            "remote_control".into(),
        ]),
        ask_goal: true,
        ..ImportOptions::default()
    };
    let imported =
        import(&scene1(), Some(&text("TestScene1_script.txt")), &options).expect("imports");
    let mut file = imported.file.clone();
    file.questions[0].at = Some(6);
    let episode = Episode::from_file(file, "half-way").expect("valid");
    let result = infer_episode(
        &episode,
        &PlannerPolicy::default(),
        &BatchOptions::default(),
    )
    .expect("inference");
    assert_eq!(
        result.answers[0].choice,
        Some(1),
        "folder: {:?}",
        result.answers[0]
    );
}

#[test]
fn skipped_lines_are_reported_with_their_numbers_or_rejected_by_strict() {
    let dir = TempDir::new();
    let out = dir.path().join("extra.json");
    let args = |strict: bool| {
        let mut args: Vec<std::ffi::OsString> = vec![
            "import".into(),
            "virtualhome".into(),
            "--graph".into(),
            data("TestScene1_graph.json").into(),
            "--script".into(),
            data("TestScene1_script_extra.txt").into(),
            "--out".into(),
            out.clone().into(),
        ];
        if strict {
            args.push("--strict".into());
        }
        args
    };
    let lenient = bip(args(false));
    let stderr = String::from_utf8_lossy(&lenient.stderr);
    assert!(lenient.status.success(), "{stderr}");
    for needle in [
        "script line 3: [SwitchOn] is a VirtualHome action bip does not model: skipped",
        "script line 5: the agent is already at fridge: skipped",
        "script line 8: bip models how containers open, and door 219 (not imported) is not one: skipped",
        "script line 10: the agent is not at cabinet: a walk to it was added first",
    ] {
        assert!(stderr.contains(needle), "missing {needle:?} in {stderr}");
    }
    let episode = bip::io::read_episode(&out).expect("valid episode");
    assert_eq!(
        episode.actions().len(),
        8,
        "kitchen, fridge, open, close, living room, (added) cabinet, open, grab"
    );

    let strict = bip(args(true));
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert_eq!(strict.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("script line 3 (<char0> [SwitchOn] <tv> (244))"),
        "{stderr}"
    );
    assert!(stderr.contains("rejected by --strict"), "{stderr}");
}

#[test]
fn malformed_graphs_give_named_errors() {
    let import_file = |name: &str| {
        read_graph(&text(name)).and_then(|g| import(&g, None, &ImportOptions::default()))
    };
    assert!(matches!(
        import_file("dangling_edge.json"),
        Err(VirtualHomeError::DanglingEdge {
            index: 1,
            missing: NodeId(3),
            ..
        })
    ));
    assert!(matches!(
        import_file("no_class.json"),
        Err(VirtualHomeError::NodeWithoutClass {
            id: NodeId(2),
            index: 1
        })
    ));
    match import_file("inside_cycle.json") {
        Err(VirtualHomeError::InsideCycle { cycle }) => {
            let ids: BTreeSet<u64> = cycle.iter().map(|n| n.0).collect();
            assert_eq!(ids, BTreeSet::from([2, 3, 4]));
        }
        other => panic!(
            "expected a cycle, got {:?}",
            other.map(|i| i.episode.id().to_string())
        ),
    }
    let dir = TempDir::new();
    for (name, needle) in [
        (
            "dangling_edge.json",
            "edges[1] (3 INSIDE 2): no node has id 3",
        ),
        ("no_class.json", "nodes[1]: node 2 has no class_name"),
        ("inside_cycle.json", "INSIDE edges form a cycle"),
    ] {
        let run = bip([
            "import".as_ref(),
            "virtualhome".as_ref(),
            "--graph".as_ref(),
            data(name).as_os_str(),
            "--out".as_ref(),
            dir.path().join("x.json").as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(needle), "{name}: {stderr}");
        assert!(stderr.contains(name), "{name}: the file is named: {stderr}");
    }
}

/// The world and actions of an episode, with every id mapped through `rename`, door
/// distances left out (VirtualHome has none).
fn modelled(episode: &Episode, rename: &dyn Fn(&str) -> String) -> Value {
    let w = episode.world();
    let mut doors: Vec<(String, String)> = Vec::new();
    let graph = w.layout.graph();
    for e in graph.edge_indices() {
        if let Some((a, b)) = graph.edge_endpoints(e) {
            if let (bip::episodes::Place::Room(a), bip::episodes::Place::Room(b)) =
                (graph[a], graph[b])
            {
                let mut pair = [
                    rename(&w.rooms[a.index()].name),
                    rename(&w.rooms[b.index()].name),
                ];
                pair.sort();
                doors.push((pair[0].clone(), pair[1].clone()));
            }
        }
    }
    doors.sort();
    let mut furniture: Vec<Value> = w
        .furniture
        .iter()
        .map(|f| {
            serde_json::json!([
                rename(&f.name),
                w.furniture_class_name(f.class),
                rename(&w.rooms[f.room.index()].name),
                f.kind == FurnitureKind::Container,
                f.open_at_start
            ])
        })
        .collect();
    furniture.sort_by_key(ToString::to_string);
    let mut objects: Vec<Value> = w
        .objects
        .iter()
        .map(|o| {
            serde_json::json!([
                rename(&o.name),
                w.class_name(o.class),
                rename(&w.furniture(o.start).name)
            ])
        })
        .collect();
    objects.sort_by_key(ToString::to_string);
    let actions: Vec<String> = episode
        .actions()
        .iter()
        .map(|a| {
            a.describe(w)
                .split(' ')
                .map(rename)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    serde_json::json!({
        "rooms": w.rooms.iter().map(|r| rename(&r.name)).collect::<Vec<_>>(),
        "start": rename(&w.rooms[episode.agent().start.index()].name),
        "doors": doors, "furniture": furniture, "objects": objects, "actions": actions,
    })
}

/// Exports `episode`, imports the result, and checks that the modelled parts survive.
fn round_trip(episode: &Episode) {
    let exported = export(episode);
    let again = import(
        &exported.graph,
        Some(&exported.script),
        &ImportOptions::default(),
    )
    .unwrap_or_else(|e| {
        panic!(
            "{}: re-import failed: {e}\n{}",
            episode.id(),
            exported.script
        )
    });
    // Exported nodes carry the original id as prefab_name.
    let original: BTreeMap<String, String> = exported
        .graph
        .nodes
        .iter()
        .filter_map(|n| {
            let new = again.names.get(&n.id)?;
            Some((new.clone(), n.prefab_name.clone().unwrap_or_default()))
        })
        .collect();
    let rename = |name: &str| {
        original
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    };
    assert_eq!(
        modelled(&again.episode, &rename),
        modelled(episode, &|n: &str| n.to_string()),
        "{}",
        episode.id()
    );
    assert!(again.report.of(NoteKind::SkippedAction).next().is_none());
    assert!(again.report.of(NoteKind::AddedWalk).next().is_none());
    for door in again.file.world.doors.iter().flatten() {
        assert!(
            matches!(door, bip::episodes::json::DoorFile::Pair(_)),
            "re-imported doors cost 1"
        );
    }
}

#[test]
fn export_then_import_round_trips_the_modelled_parts() {
    let imported = import(
        &scene1(),
        Some(&text("TestScene1_script.txt")),
        &ImportOptions::default(),
    )
    .expect("imports");
    round_trip(&imported.episode);
    // Names made by the importer come back unchanged.
    let again = export(&imported.episode);
    let re =
        import(&again.graph, Some(&again.script), &ImportOptions::default()).expect("re-import");
    let names = |e: &Episode| -> Vec<String> {
        e.world()
            .furniture
            .iter()
            .map(|f| f.name.clone())
            .chain(e.world().objects.iter().map(|o| o.name.clone()))
            .collect()
    };
    assert_eq!(names(&re.episode), names(&imported.episode));
    for path in examples() {
        let episode = bip::io::read_episode(&path).expect("example");
        round_trip(&episode);
    }
}

#[test]
fn bip_export_virtualhome_writes_an_executor_script_and_graph() {
    let dir = TempDir::new();
    let (graph, script) = (dir.path().join("g.json"), dir.path().join("p.txt"));
    let example = examples().into_iter().next().expect("an example");
    let run = bip([
        "export".as_ref(),
        "virtualhome".as_ref(),
        example.as_os_str(),
        "--graph-out".as_ref(),
        graph.as_os_str(),
        "--script-out".as_ref(),
        script.as_os_str(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let program = std::fs::read_to_string(&script).expect("script written");
    let episode = bip::io::read_episode(&example).expect("example");
    assert_eq!(program.lines().count(), episode.actions().len());
    for line in program.lines() {
        // VirtualHome's parse_script_line: ^\[(\w+)\] then <([\w\s]+)>\s*\((\d+)\) pairs.
        let (action, rest) = line
            .strip_prefix('[')
            .and_then(|l| l.split_once("] "))
            .unwrap_or_else(|| panic!("{line}"));
        assert!(action.chars().all(|c| c.is_ascii_alphanumeric()), "{line}");
        for arg in rest.split(") ") {
            let arg = arg.trim_end_matches(')');
            let (class, id) = arg
                .strip_prefix('<')
                .and_then(|a| a.split_once("> ("))
                .unwrap_or_else(|| panic!("{line}"));
            assert!(
                class
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == ' '),
                "{line}"
            );
            assert!(id.parse::<u64>().is_ok(), "{line}");
        }
    }
    let graph: Value =
        serde_json::from_str(&std::fs::read_to_string(&graph).expect("graph")).expect("json");
    for node in graph["nodes"].as_array().expect("nodes") {
        // The fields VirtualHome's GraphNode.from_dict reads.
        for field in [
            "id",
            "class_name",
            "category",
            "properties",
            "states",
            "prefab_name",
        ] {
            assert!(!node[field].is_null(), "{field} missing in {node}");
        }
        assert!(
            node["bounding_box"]["center"].is_array() && node["bounding_box"]["size"].is_array()
        );
    }
}
