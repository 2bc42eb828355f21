//! The id of a VirtualHome node, apart from the graph so that errors can name nodes
//! without depending on the graph reader.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A VirtualHome node id (the `id` of a node, `from_id`/`to_id` of an edge, the `(n)` of a
/// script line bound to a scene).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct NodeId(pub u64);

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
