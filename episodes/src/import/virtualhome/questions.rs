//! Questions asked on the command line, about the imported agent.
//!
//! - `--goals A,B,...` limits the classes the agent may be after (the episode's
//!   `agent.goals`); without it every class of imported object is a candidate.
//! - `--ask-goal`: "which is the agent trying to get?", one option per candidate class.
//! - `--ask-belief OBJECT:CONTAINER`: "if the agent has been trying to get an OBJECT, does
//!   it think one is inside CONTAINER?", options *inside* and *not inside*.
//!
//! Classes may be given as a class (`apple`), an object id (`apple_2`) or a node id
//! (`418`); furniture as its episode id (`fridge`, `cabinet_2`) or a node id (`285`).
//! Every question is asked after the last action.

use std::collections::HashMap;

use crate::json::{BeliefFile, OptionFile, PropositionFile, QuestionFile};
use crate::world::World;

use super::error::VirtualHomeError;
use super::graph::Graph;
use super::node::NodeId;

/// What to ask: see the module docs.
pub(crate) struct Asked<'a> {
    pub(crate) agent: &'a str,
    pub(crate) goals: Option<&'a [String]>,
    pub(crate) ask_goal: bool,
    pub(crate) ask_beliefs: &'a [(String, String)],
}

/// Resolves names given on the command line.
pub(crate) struct Lookup<'a> {
    pub(crate) world: &'a World,
    pub(crate) graph: &'a Graph,
    pub(crate) names: &'a HashMap<usize, String>,
}

impl Lookup<'_> {
    /// The episode id of node `text`, if `text` is a node id that was imported.
    fn node_name(&self, text: &str) -> Option<&str> {
        let id = NodeId(text.trim().parse().ok()?);
        let n = self.graph.position(id)?;
        self.names.get(&n).map(String::as_str)
    }

    fn class(&self, flag: &'static str, text: &str) -> Result<String, VirtualHomeError> {
        let world = self.world;
        let name = self.node_name(text).unwrap_or(text);
        if world.class_by_name(name).is_some() {
            return Ok(name.to_string());
        }
        if let Some(o) = world.object_by_name(name) {
            return Ok(world.class_name(world.object(o).class).to_string());
        }
        Err(VirtualHomeError::Question {
            flag,
            value: text.to_string(),
            reason: "is not the class, id or node id of an imported object".into(),
        })
    }

    fn furniture(&self, flag: &'static str, text: &str) -> Result<String, VirtualHomeError> {
        let name = self.node_name(text).unwrap_or(text);
        match self.world.furniture_by_name(name) {
            Some(f) => Ok(self.world.furniture(f).name.clone()),
            None => Err(VirtualHomeError::Question {
                flag,
                value: text.to_string(),
                reason: "is not the id or node id of an imported container or surface".into(),
            }),
        }
    }

    /// The agent's goal classes (`None`: all) and the questions asked.
    ///
    /// # Errors
    /// [`VirtualHomeError::Question`] naming the flag and value that do not resolve.
    pub(crate) fn ask(
        &self,
        asked: &Asked<'_>,
    ) -> Result<(Option<Vec<String>>, Vec<QuestionFile>), VirtualHomeError> {
        let goals = asked
            .goals
            .map(|gs| {
                let mut classes: Vec<String> = Vec::with_capacity(gs.len());
                for g in gs {
                    let class = self.class("--goals", g)?;
                    if !classes.contains(&class) {
                        classes.push(class);
                    }
                }
                Ok::<_, VirtualHomeError>(classes)
            })
            .transpose()?;
        let candidates: Vec<String> = goals.clone().unwrap_or_else(|| self.world.classes.clone());
        let agent = asked.agent;
        let mut questions = Vec::new();
        if asked.ask_goal {
            questions.push(goal_question(agent, &candidates)?);
        }
        for (object, container) in asked.ask_beliefs {
            let class = self.class("--ask-belief", object)?;
            let place = self.furniture("--ask-belief", container)?;
            if !candidates.contains(&class) {
                return Err(VirtualHomeError::Question {
                    flag: "--ask-belief",
                    value: format!("{object}:{container}"),
                    reason: format!("{class} is not among the agent's goals (--goals)"),
                });
            }
            questions.push(belief_question(agent, &class, &place));
        }
        Ok((goals, questions))
    }
}

/// "Which object is AGENT more likely trying to get?", over the candidate classes.
fn goal_question(agent: &str, candidates: &[String]) -> Result<QuestionFile, VirtualHomeError> {
    if candidates.len() < 2 {
        return Err(VirtualHomeError::Question {
            flag: "--ask-goal",
            value: candidates.join(","),
            reason: "a goal question needs at least two candidate classes".into(),
        });
    }
    Ok(QuestionFile {
        id: Some("goal".into()),
        label: None,
        text: Some(format!(
            "Which object is {agent} more likely trying to get?"
        )),
        at: None,
        options: candidates
            .iter()
            .map(|c| OptionFile {
                text: Some(format!("{agent} has been trying to get {}.", a(c))),
                goal: Some(c.clone()),
                belief: None,
                given: None,
            })
            .collect(),
        expected: None,
    })
}

/// "If AGENT has been trying to get CLASS, ...": does it think one is inside `place`?
fn belief_question(agent: &str, class: &str, place: &str) -> QuestionFile {
    let option = |inside: bool| OptionFile {
        text: Some(format!(
            "{agent} thinks there is {} inside the {place}.",
            if inside {
                a(class)
            } else {
                format!("no {class}")
            }
        )),
        goal: None,
        belief: Some(BeliefFile {
            object: class.to_string(),
            container: place.to_string(),
            inside,
        }),
        given: Some(PropositionFile {
            goal: Some(class.to_string()),
            belief: None,
        }),
    };
    QuestionFile {
        id: Some(format!("belief-{class}-{place}")),
        label: None,
        text: Some(format!(
            "If {agent} has been trying to get {}, which is more likely?",
            a(class)
        )),
        at: None,
        options: vec![option(true), option(false)],
        expected: None,
    }
}

/// "an apple", "a plate".
fn a(class: &str) -> String {
    let vowel = class.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {class}", if vowel { "an" } else { "a" })
}
