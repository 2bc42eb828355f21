//! VirtualHome program lines, read: `[Walk] <kitchen> (198)`, `[PutBack] <apple> (418)
//! <kitchen_table> (223)`, optionally led by the character (`<char0> [Open] <fridge>
//! (285)`). Blank lines and lines starting with `#` are skipped, as VirtualHome's own
//! reader does. The numbers must be node ids of the scene graph (the simulator's script
//! mode), not the instance indices of the dataset's free programs.

use super::error::{ScriptProblem, VirtualHomeError};
use super::node::NodeId;

/// One program line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScriptLine<'a> {
    /// 1-based line number.
    pub(crate) line: usize,
    /// The line, trimmed.
    pub(crate) text: &'a str,
    /// The leading `<character>`, if any.
    pub(crate) character: Option<&'a str>,
    /// The action, as written (`Walk`).
    pub(crate) action: &'a str,
    /// The arguments: class as written and node id.
    pub(crate) args: Vec<(&'a str, NodeId)>,
}

/// Reads every action line of a program.
///
/// # Errors
/// [`VirtualHomeError::Script`] for the first line that is not `[Action] <class> (id) ...`.
pub(crate) fn parse_script(text: &str) -> Result<Vec<ScriptLine<'_>>, VirtualHomeError> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        lines.push(parse_line(i + 1, line)?);
    }
    Ok(lines)
}

fn parse_line(number: usize, text: &str) -> Result<ScriptLine<'_>, VirtualHomeError> {
    let error = |problem: ScriptProblem| VirtualHomeError::Script {
        line: number,
        text: text.to_string(),
        problem,
    };
    let mut rest = text;
    let character = if rest.starts_with('<') {
        let (name, after) =
            delimited(rest, '<', '>').ok_or_else(|| error(ScriptProblem::BadCharacter))?;
        rest = after.trim_start();
        Some(name)
    } else {
        None
    };
    let (action, after) =
        delimited(rest, '[', ']').ok_or_else(|| error(ScriptProblem::ExpectedAction))?;
    if action.is_empty()
        || !action
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(error(ScriptProblem::ActionNotOneWord));
    }
    rest = after.trim_start();
    let mut args = Vec::new();
    while !rest.is_empty() {
        let (class, after) =
            delimited(rest, '<', '>').ok_or_else(|| error(ScriptProblem::ExpectedArgument))?;
        let (id, after) = delimited(after.trim_start(), '(', ')').ok_or_else(|| {
            error(ScriptProblem::MissingNodeId {
                class: class.to_string(),
            })
        })?;
        let id = id.trim().parse::<u64>().map_err(|_| {
            error(ScriptProblem::NotANodeId {
                text: id.to_string(),
            })
        })?;
        args.push((class.trim(), NodeId(id)));
        rest = after.trim_start();
    }
    Ok(ScriptLine {
        line: number,
        text,
        character,
        action,
        args,
    })
}

/// `open ... close rest` → `(inside, rest)`, when `text` starts with `open`.
fn delimited(text: &str, open: char, close: char) -> Option<(&str, &str)> {
    let inner = text.strip_prefix(open)?;
    let end = inner.find(close)?;
    Some((&inner[..end], &inner[end + close.len_utf8()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_with_and_without_the_character() {
        let lines = parse_script(
            "# a comment\n\n<char0> [Walk] <kitchen> (198)\n[PutBack]  <apple> (418) <kitchen_table>(223)\n[StandUp]\n",
        )
        .expect("valid");
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].line, 3);
        assert_eq!(lines[0].character, Some("char0"));
        assert_eq!(lines[0].args, vec![("kitchen", NodeId(198))]);
        assert_eq!(lines[1].character, None);
        assert_eq!(lines[1].action, "PutBack");
        assert_eq!(
            lines[1].args,
            vec![("apple", NodeId(418)), ("kitchen_table", NodeId(223))]
        );
        assert!(lines[2].args.is_empty());
    }

    #[test]
    fn bad_lines_are_named() {
        for (text, expected) in [
            ("Walk to the kitchen", ScriptProblem::ExpectedAction),
            ("<char0 [Walk]", ScriptProblem::BadCharacter),
            ("[Walk] kitchen (1)", ScriptProblem::ExpectedArgument),
            (
                "[Walk] <kitchen>",
                ScriptProblem::MissingNodeId {
                    class: "kitchen".into(),
                },
            ),
            (
                "[Walk] <kitchen> (1.1)",
                ScriptProblem::NotANodeId { text: "1.1".into() },
            ),
            ("[Put back] <apple> (1)", ScriptProblem::ActionNotOneWord),
        ] {
            match parse_script(&format!("[Walk] <kitchen> (1)\n{text}")) {
                Err(VirtualHomeError::Script {
                    line: 2, problem, ..
                }) => assert_eq!(problem, expected, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
