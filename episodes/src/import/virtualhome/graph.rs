//! The VirtualHome environment-graph JSON (`{"nodes": [...], "edges": [...]}`), as written,
//! and its checked, indexed form.
//!
//! The serde structs accept what VirtualHome, Watch-And-Help and MMToM-QA's generator write:
//! unknown fields are ignored, `states`, `properties` and `bounding_box` may be missing,
//! and relation types are compared without regard to case. [`Graph::new`] rejects what no
//! importer could use: duplicate node ids, nodes without a class, edges to missing nodes.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::error::VirtualHomeError;
use super::node::NodeId;

/// A whole environment graph as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GraphFile {
    /// Every object of the scene, rooms included.
    pub nodes: Vec<NodeFile>,
    /// Relations between nodes.
    pub edges: Vec<EdgeFile>,
}

/// One node as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NodeFile {
    /// Unique id.
    pub id: NodeId,
    /// Class ("fridge", "coffee_table"); required by the importer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    /// Category ("Rooms", "Furniture", "Props", "Walls", ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The Unity prefab.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefab_name: Option<String>,
    /// States: `OPEN`, `CLOSED`, `ON`, `OFF`, ...
    #[serde(default)]
    pub states: Vec<String>,
    /// Properties: `CAN_OPEN`, `CONTAINERS`, `SURFACES`, `GRABBABLE`, ...
    #[serde(default)]
    pub properties: Vec<String>,
    /// Axis-aligned box in metres, y up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounding_box: Option<BoundingBox>,
}

/// An axis-aligned bounding box, in metres, y up.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BoundingBox {
    /// Centre `[x, y, z]`.
    pub center: [f64; 3],
    /// Extent `[x, y, z]`.
    pub size: [f64; 3],
}

impl BoundingBox {
    /// Whether the box says anything about where the node is: finite, with a positive
    /// floor area. Exported graphs carry zero-size placeholders, which are ignored.
    pub fn is_informative(&self) -> bool {
        self.center.iter().chain(&self.size).all(|v| v.is_finite())
            && self.size[0] > 0.0
            && self.size[2] > 0.0
    }

    /// The floor interval `[min, max]` along axis `axis` (0 = x, 2 = z).
    pub(crate) fn interval(&self, axis: usize) -> (f64, f64) {
        let half = self.size[axis].abs() / 2.0;
        (self.center[axis] - half, self.center[axis] + half)
    }

    /// Whether `point` lies over the box's floor area.
    pub(crate) fn covers(&self, point: [f64; 3]) -> bool {
        [0, 2].iter().all(|&axis| {
            let (lo, hi) = self.interval(axis);
            (lo..=hi).contains(&point[axis])
        })
    }
}

/// One relation as written: `from_id` `relation_type` `to_id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeFile {
    /// The subject ("the apple" of "the apple is ON the table").
    pub from_id: NodeId,
    /// `INSIDE`, `ON`, `CLOSE`, `FACING`, `BETWEEN`, ...
    pub relation_type: String,
    /// The object of the relation.
    pub to_id: NodeId,
}

/// The relations the importer reads; the rest are kept as [`Relation::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Relation {
    /// `INSIDE`: a thing inside a container, furniture inside a room.
    Inside,
    /// `ON`: a thing on a surface.
    On,
    /// `BETWEEN`: a door between rooms.
    Between,
    /// Anything else (`CLOSE`, `FACING`, ...).
    Other,
}

impl Relation {
    fn parse(text: &str) -> Self {
        match text.to_ascii_uppercase().as_str() {
            "INSIDE" => Relation::Inside,
            "ON" => Relation::On,
            "BETWEEN" => Relation::Between,
            _ => Relation::Other,
        }
    }
}

/// A checked edge between node positions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    pub(crate) relation: Relation,
    pub(crate) to: usize,
}

/// A checked node: id, class and what the importer reads of it.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) id: NodeId,
    pub(crate) class: String,
    pub(crate) category: String,
    pub(crate) states: Vec<String>,
    pub(crate) properties: Vec<String>,
    pub(crate) bounding_box: Option<BoundingBox>,
}

impl Node {
    /// Whether the node has property `name` (any case).
    pub(crate) fn has(&self, name: &str) -> bool {
        self.properties.iter().any(|p| p.eq_ignore_ascii_case(name))
    }

    /// Whether the node is in state `name` (any case).
    pub(crate) fn is(&self, name: &str) -> bool {
        self.states.iter().any(|s| s.eq_ignore_ascii_case(name))
    }

    /// Its bounding box, if it says where the node is.
    pub(crate) fn place_box(&self) -> Option<BoundingBox> {
        self.bounding_box.filter(BoundingBox::is_informative)
    }
}

/// A graph whose every edge joins two nodes and whose every node has an id and a class.
/// Nodes are addressed by their position in the file.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    index: HashMap<NodeId, usize>,
    out: Vec<Vec<usize>>,
}

impl Graph {
    /// Checks and indexes a graph.
    ///
    /// # Errors
    /// [`VirtualHomeError::DuplicateNode`], [`VirtualHomeError::NodeWithoutClass`] or
    /// [`VirtualHomeError::DanglingEdge`] for the first node or edge at fault.
    pub(crate) fn new(file: &GraphFile) -> Result<Self, VirtualHomeError> {
        let mut index = HashMap::with_capacity(file.nodes.len());
        let mut nodes = Vec::with_capacity(file.nodes.len());
        for (i, n) in file.nodes.iter().enumerate() {
            if let Some(&first) = index.get(&n.id) {
                return Err(VirtualHomeError::DuplicateNode {
                    id: n.id,
                    index: i,
                    first,
                });
            }
            index.insert(n.id, i);
            let class = n.class_name.as_deref().map(str::trim).unwrap_or_default();
            if class.is_empty() {
                return Err(VirtualHomeError::NodeWithoutClass { id: n.id, index: i });
            }
            nodes.push(Node {
                id: n.id,
                class: class.to_string(),
                category: n.category.clone().unwrap_or_default(),
                states: n.states.clone(),
                properties: n.properties.clone(),
                bounding_box: n.bounding_box,
            });
        }
        let mut edges = Vec::with_capacity(file.edges.len());
        let mut out = vec![Vec::new(); nodes.len()];
        for (i, e) in file.edges.iter().enumerate() {
            let find = |id: NodeId| {
                index
                    .get(&id)
                    .copied()
                    .ok_or_else(|| VirtualHomeError::DanglingEdge {
                        index: i,
                        from: e.from_id,
                        relation: e.relation_type.clone(),
                        to: e.to_id,
                        missing: id,
                    })
            };
            let (from, to) = (find(e.from_id)?, find(e.to_id)?);
            out[from].push(edges.len());
            edges.push(Edge {
                relation: Relation::parse(&e.relation_type),
                to,
            });
        }
        Ok(Self {
            nodes,
            edges,
            index,
            out,
        })
    }

    /// The position of node `id`.
    pub(crate) fn position(&self, id: NodeId) -> Option<usize> {
        self.index.get(&id).copied()
    }

    /// The targets of node `node`'s edges of relation `relation`, in file order, without
    /// repeats.
    pub(crate) fn targets(&self, node: usize, relation: Relation) -> Vec<usize> {
        let mut targets: Vec<usize> = Vec::new();
        for &e in &self.out[node] {
            let edge = self.edges[e];
            if edge.relation == relation && !targets.contains(&edge.to) {
                targets.push(edge.to);
            }
        }
        targets
    }
}

/// Reads graph JSON text.
///
/// # Errors
/// [`VirtualHomeError::Json`] with line and column when the text is not an environment
/// graph.
pub fn read_graph(text: &str) -> Result<GraphFile, VirtualHomeError> {
    serde_json::from_str(text).map_err(|e| VirtualHomeError::Json {
        line: e.line(),
        column: e.column(),
        message: crate::limits::json_message(&e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(text: &str) -> Result<Graph, VirtualHomeError> {
        Graph::new(&read_graph(text)?)
    }

    #[test]
    fn missing_fields_default_and_relations_ignore_case() {
        let g = graph(
            r#"{"nodes": [{"id": 1, "class_name": "kitchen", "category": "Rooms", "extra": 3},
                          {"id": 2, "class_name": "fridge"}],
                "edges": [{"from_id": 2, "relation_type": "inside", "to_id": 1}]}"#,
        )
        .expect("valid");
        assert_eq!(g.targets(1, Relation::Inside), vec![0]);
        assert!(g.nodes[1].properties.is_empty());
    }

    #[test]
    fn bad_graphs_name_the_node_or_edge() {
        let dangling = graph(
            r#"{"nodes": [{"id": 1, "class_name": "kitchen"}],
                "edges": [{"from_id": 1, "relation_type": "ON", "to_id": 9}]}"#,
        );
        assert!(matches!(
            dangling,
            Err(VirtualHomeError::DanglingEdge {
                index: 0,
                missing: NodeId(9),
                ..
            })
        ));
        let classless = graph(r#"{"nodes": [{"id": 4, "class_name": " "}], "edges": []}"#);
        assert_eq!(
            classless.err(),
            Some(VirtualHomeError::NodeWithoutClass {
                id: NodeId(4),
                index: 0
            })
        );
        let twice = graph(
            r#"{"nodes": [{"id": 4, "class_name": "a"}, {"id": 4, "class_name": "b"}], "edges": []}"#,
        );
        assert!(matches!(
            twice,
            Err(VirtualHomeError::DuplicateNode {
                id: NodeId(4),
                index: 1,
                first: 0
            })
        ));
        assert!(matches!(
            graph("{\"nodes\": 3}"),
            Err(VirtualHomeError::Json { line: 1, .. })
        ));
    }

    #[test]
    fn zero_size_boxes_say_nothing() {
        let zero = BoundingBox::default();
        assert!(!zero.is_informative());
        let room = BoundingBox {
            center: [0.0, 1.0, 0.0],
            size: [4.0, 2.0, 4.0],
        };
        assert!(room.is_informative());
        assert!(room.covers([1.9, 0.0, -1.9]));
        assert!(!room.covers([2.1, 0.0, 0.0]));
    }
}
