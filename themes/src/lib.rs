//! Thematic variants of the bip vocabulary (Apartment, Andersen Fairy Tales, Ancient
//! Egyptian, Outer Space, Wild West, Medieval Castle).
//!
//! Reserved in the workspace so that the dependency graph `episodes ← themes ← engine`
//! is fixed from the start; the theme lexicons and `bip theme` arrive with the thematic
//! variants work. Nothing here is used yet.
#![deny(missing_docs)]
