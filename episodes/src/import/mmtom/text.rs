//! Splitting MMToM-QA text into sentences and lower-case tokens.
//!
//! Tokens are words (lower-cased, hyphens and digits kept: `well-equipped`, `2nd`) and
//! clause punctuation: commas and brackets (`,`), and the stronger breaks of semicolons,
//! colons and dashes (`;`). Contractions are
//! expanded so that the grammar sees whole words: `isn't` → `is not`, `there's` →
//! `there is`, `you'll` → `you will`; a possessive `'s` becomes its own token.

/// One token of a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// A lower-cased word.
    Word(String),
    /// A list or clause boundary inside a sentence: comma or bracket.
    Comma,
    /// A clause boundary that never joins list items: semicolon or colon.
    Break,
    /// A dash; two of them set a phrase apart ("each table — the one in the bedroom and
    /// the one in the lounge — has a book on it").
    Dash,
}

impl Token {
    /// The word, if this is one.
    pub(crate) fn word(&self) -> Option<&str> {
        match self {
            Token::Word(w) => Some(w),
            Token::Comma | Token::Break | Token::Dash => None,
        }
    }

    /// Whether this is the word `w`.
    pub(crate) fn is(&self, w: &str) -> bool {
        self.word() == Some(w)
    }
}

/// A sentence: its text as written (for error messages) and its tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sentence {
    /// The sentence as written, trimmed, with its final stop.
    pub(crate) text: String,
    /// Its tokens, without the final stop.
    pub(crate) tokens: Vec<Token>,
}

/// Splits `text` into sentences at `.`, `!` and `?` followed by white space or the end.
pub(crate) fn sentences(text: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let next_is_space = chars.get(k + 1).is_none_or(|&(_, n)| n.is_whitespace());
        if matches!(c, '.' | '!' | '?') && next_is_space {
            push_sentence(&mut out, &text[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    push_sentence(&mut out, &text[start..]);
    out
}

fn push_sentence(out: &mut Vec<Sentence>, raw: &str) {
    let text = raw.trim();
    let tokens = tokenize(text);
    if !tokens.is_empty() {
        out.push(Sentence {
            text: text.to_string(),
            tokens,
        });
    }
}

/// Tokens of one piece of text; sentence stops are dropped.
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        let c = if c == '\u{2019}' { '\'' } else { c };
        if c.is_alphanumeric() || c == '-' || c == '\'' {
            word.extend(c.to_lowercase());
            continue;
        }
        flush_word(&mut tokens, &mut word);
        if matches!(c, ',' | '(' | ')') {
            tokens.push(Token::Comma);
        } else if matches!(c, ';' | ':') {
            tokens.push(Token::Break);
        } else if matches!(c, '\u{2014}' | '\u{2013}') {
            tokens.push(Token::Dash);
        }
    }
    flush_word(&mut tokens, &mut word);
    tokens
}

fn flush_word(tokens: &mut Vec<Token>, word: &mut String) {
    if word.is_empty() {
        return;
    }
    let w = std::mem::take(word);
    if w.chars().all(|c| c == '-') {
        // A spaced hyphen or double hyphen stands for a dash.
        tokens.push(Token::Dash);
        return;
    }
    // A minus before digits stays, so that "-5 apples" is no count of five.
    let negative = w.starts_with('-')
        && w.trim_start_matches('-')
            .starts_with(|c: char| c.is_ascii_digit());
    let trimmed = w.trim_matches(|c| c == '\'' || c == '-');
    if trimmed.is_empty() {
        return;
    }
    let signed;
    let w = if negative {
        signed = format!("-{trimmed}");
        signed.as_str()
    } else {
        trimmed
    };
    let push = |tokens: &mut Vec<Token>, s: &str| tokens.push(Token::Word(s.to_string()));
    if let Some(stem) = w.strip_suffix("n't") {
        let stem = match stem {
            "wo" => "will",
            "ca" => "can",
            "is" | "are" | "was" | "were" | "does" | "do" | "did" | "has" | "have" => stem,
            other => other,
        };
        push(tokens, stem);
        push(tokens, "not");
    } else if let Some(stem) = w.strip_suffix("'ll") {
        push(tokens, stem);
        push(tokens, "will");
    } else if let Some(stem) = w.strip_suffix("'re") {
        push(tokens, stem);
        push(tokens, "are");
    } else if let Some(stem) = w.strip_suffix("'s") {
        push(tokens, stem);
        let is_verb = matches!(
            stem,
            "there" | "it" | "he" | "she" | "that" | "what" | "who" | "where" | "here"
        );
        push(tokens, if is_verb { "is" } else { "'s" });
    } else {
        push(tokens, w);
    }
}

/// The words of a span of tokens, for error messages.
pub(crate) fn span_text(tokens: &[Token], span: std::ops::Range<usize>) -> String {
    let end = span.end.min(tokens.len());
    tokens[span.start.min(end)..end]
        .iter()
        .map(|t| match t {
            Token::Word(w) => w.as_str(),
            Token::Comma => ",",
            Token::Break => ";",
            Token::Dash => "\u{2014}",
        })
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ,", ",")
        .replace(" ;", ";")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        tokenize(text)
            .into_iter()
            .map(|t| match t {
                Token::Word(w) => w,
                Token::Comma => ",".into(),
                Token::Break => ";".into(),
                Token::Dash => "-".into(),
            })
            .collect()
    }

    #[test]
    fn sentences_split_at_stops_but_not_inside_words() {
        let s = sentences("Mark is in the kitchen. He opens it!  Then? done");
        let texts: Vec<&str> = s.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            ["Mark is in the kitchen.", "He opens it!", "Then?", "done"]
        );
    }

    #[test]
    fn contractions_are_expanded_and_case_is_folded() {
        assert_eq!(
            words("There's an apple, you'll see; it isn't Mark's."),
            [
                "there", "is", "an", "apple", ",", "you", "will", "see", ";", "it", "is", "not",
                "mark", "'s"
            ]
        );
    }

    #[test]
    fn hyphens_digits_and_curly_apostrophes_stay_in_words() {
        assert_eq!(
            words("The well-equipped 2nd (left) isn\u{2019}t"),
            ["the", "well-equipped", "2nd", ",", "left", ",", "is", "not"]
        );
    }
}
