//! What the narrative reader does with the places a sentence names: which verb takes them,
//! which pieces they are, and what is done at the end of a clause.

use crate::import::ImportError;

use super::super::lexicon::Noun;
use super::super::phrase::{Head, PhraseList};
use super::super::resolve::{self, Context, Reading, Unresolved};
use super::super::steps::{Op, Target};
use super::super::text::{span_text, Sentence, Token};
use super::super::verbs::{verb, Verb};
use super::reader::{Motion, Reader, Repeat};

/// Words between a place and a passive verb ("the fridge is then opened").
const PASSIVE_AUXILIARIES: &[&str] = &[
    "is",
    "was",
    "are",
    "were",
    "gets",
    "got",
    "being",
    "been",
    "then",
    "now",
    "first",
    "quickly",
    "promptly",
    "subsequently",
    "also",
];

impl Reader<'_> {
    /// A list of place phrases: whatever verb is waiting takes it.
    pub(super) fn places(
        &mut self,
        sentence: &Sentence,
        list: &PhraseList,
    ) -> Result<(), ImportError> {
        let phrase = span_text(&sentence.tokens, list.span.clone());
        let in_turn = self.one_by_one && self.steps.len() > self.steps_before;
        if in_turn
            && list
                .items
                .iter()
                .all(|i| matches!(i.head, Head::Relative(_)))
        {
            // "at each one he opens it and shuts it before going on to the next one": the
            // next of the places taken in turn, each already read.
            let why = "the places are taken one by one, and the next of them is already read";
            self.note(sentence, format!("\"{phrase}\": {why}"));
            self.motion = Motion::Still;
            self.pending.clear();
            return Ok(());
        }
        let targets = self.resolve(sentence, list)?;
        if targets.is_empty() {
            // Only objects the scene never listed, walked toward: nothing known to go to.
            self.motion = Motion::Still;
            self.pending.clear();
            return Ok(());
        }
        let unknown_verb = std::mem::take(&mut self.unknown_verb);
        if self.location {
            return self.location(sentence, &phrase, &targets);
        }
        let idle =
            self.motion == Motion::Still && self.pending.is_empty() && self.repeat == Repeat::No;
        if self.start.is_none() && idle {
            // "Jamal's starting point is the bathroom": a room named before anything is
            // done is where the agent starts.
            if let [Target::Room(r)] = targets.as_slice() {
                self.start = Some(*r);
                self.room = Some(*r);
                self.motion = Motion::Still;
                return Ok(());
            }
        }
        if self.repeat == Repeat::With {
            self.repeat = Repeat::No;
            let ops = self.steps.template();
            self.push_spread(sentence, &phrase, ops, targets.clone())?;
            if std::mem::take(&mut self.following) {
                self.steps.mark_tentative();
            }
        } else if !self.pending.is_empty() {
            let ops = std::mem::take(&mut self.pending);
            self.push(sentence, &phrase, ops, targets.clone())?;
        } else if self.motion == Motion::Destination {
            self.motion = Motion::Moving;
            self.loose_destination = false;
            self.push(sentence, &phrase, vec![Op::Walk], targets.clone())?;
        } else if self.motion == Motion::Leaving {
            self.motion = Motion::Still;
        } else if self.is_passive_object(sentence, list) {
            // "the fridge is opened and then closed by him": the verbs after it take it.
        } else if unknown_verb || self.verb_follows(sentence, list) {
            // "makes a beeline for the fridge", "her next stop is the stove", "the
            // dishwasher is where she goes".
            self.note(
                sentence,
                format!("\"{phrase}\" is where the agent goes next"),
            );
            self.push(sentence, &phrase, vec![Op::Walk], targets.clone())?;
        } else if let Some(ops) = self.continued(&targets) {
            // "visits the fridge and afterwards the microwave", "Then the second."
            if self.steps.len() == self.steps_before {
                self.note(
                    sentence,
                    format!("\"{phrase}\" has no verb of its own: the last action goes on"),
                );
            }
            self.push(sentence, &phrase, ops, targets.clone())?;
        } else {
            return Err(self.error(
                sentence,
                &phrase,
                "no verb says what the agent does with it",
            ));
        }
        // "takes a book out of it, and closes it": "it" is still the cabinet.
        if targets.iter().any(|t| !matches!(t, Target::Object(_))) {
            self.focus = targets;
        }
        Ok(())
    }

    /// "is in the kitchen", "continues around the kitchen", "walks from the stove".
    fn location(
        &mut self,
        sentence: &Sentence,
        phrase: &str,
        targets: &[Target],
    ) -> Result<(), ImportError> {
        self.location = false;
        let source = std::mem::take(&mut self.source);
        match (self.start, targets) {
            (None, [Target::Room(r)]) => {
                self.start = Some(*r);
                self.room = Some(*r);
            }
            (_, places) if !source && places.iter().any(|t| !matches!(t, Target::Room(_))) => {
                let reason = "it says where the agent is, but no verb says what it does there";
                return Err(self.error(sentence, phrase, reason));
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether a passive open or close follows the places ("the microwave is then closed
    /// by her").
    fn is_passive_object(&self, sentence: &Sentence, list: &PhraseList) -> bool {
        let tokens = &sentence.tokens;
        let mut k = list.span.end;
        let mut auxiliary = false;
        while let Some(w) = tokens.get(k).and_then(Token::word) {
            if PASSIVE_AUXILIARIES.contains(&w) {
                auxiliary |= matches!(w, "is" | "was" | "are" | "were" | "gets" | "got" | "being");
                k += 1;
                continue;
            }
            let acted = matches!(verb(w), Some(Verb::Open | Verb::Close | Verb::Grab));
            return auxiliary && acted && (w.ends_with("ed") || w.ends_with("en") || w == "shut");
        }
        false
    }

    /// The operations a place with no verb of its own continues: what was done to the
    /// last place acted on ("opens the first cabinet and closes it. Then the second."),
    /// or the last walk; only walking for a room (it cannot be opened).
    fn continued(&self, targets: &[Target]) -> Option<Vec<Op>> {
        let last = self.steps.last()?;
        if targets.iter().any(|t| matches!(t, Target::Room(_))) {
            return Some(vec![Op::Walk]);
        }
        let acted = last
            .ops
            .iter()
            .any(|op| matches!(op, Op::Open | Op::Close | Op::Grab));
        Some(if acted {
            self.steps.template()
        } else {
            last.ops.clone()
        })
    }

    /// Whether the clause after the places goes on with a verb that is not an action on
    /// them ("the dishwasher is where she goes", "the kitchen is her next stop").
    fn verb_follows(&self, sentence: &Sentence, list: &PhraseList) -> bool {
        let words = sentence.tokens[list.span.end..]
            .iter()
            .map_while(Token::word);
        let mut saw = false;
        let mut copula = false;
        for w in words {
            // "the microwave is next": where the agent goes next.
            if copula && w == "next" {
                return true;
            }
            copula = matches!(w, "is" | "was" | "comes");
            match verb(w) {
                Some(Verb::Open | Verb::Close | Verb::Grab | Verb::Repeat) => return false,
                Some(_) => saw = true,
                None => saw |= super::reader::is_verb_like(w) && w != "is" && w != "was",
            }
        }
        saw
    }

    pub(super) fn resolve(
        &mut self,
        sentence: &Sentence,
        list: &PhraseList,
    ) -> Result<Vec<Target>, ImportError> {
        let mut targets = Vec::new();
        let mut pieces = Vec::new();
        for item in &list.items {
            let phrase = span_text(&sentence.tokens, item.span.clone());
            match item.head {
                Head::Noun(Noun::Room(r)) => {
                    match self.apartment.rooms.iter().position(|x| *x == r) {
                        Some(room) => targets.push(Target::Room(room)),
                        None => {
                            return Err(self.error(sentence, &phrase, "the scene has no such room"))
                        }
                    }
                }
                Head::Noun(Noun::Object(o)) => {
                    match resolve::object(self.apartment, o, self.room, self.piece_in_focus()) {
                        Some(object) => targets.push(Target::Object(object)),
                        // "goes to the living room and approaches a book", with no book in
                        // the scene: a walk toward some place of the room, which says no
                        // more than the walk into it.
                        None if self.motion == Motion::Destination && self.room.is_some() => {
                            let why = "the scene lists no such object: a walk toward some place of the room the agent is in, which adds nothing";
                            self.note(sentence, format!("\"{phrase}\": {why}"));
                        }
                        None => {
                            return Err(self.error(
                                sentence,
                                &phrase,
                                "the scene has no such object",
                            ))
                        }
                    }
                }
                _ => {
                    let found = self.furniture(sentence, item, &phrase)?;
                    if let Head::Noun(Noun::Furniture(f)) = item.head {
                        self.last_noun = Some(f);
                    }
                    pieces.extend(found.iter().copied());
                    targets.extend(found.into_iter().map(Target::Furniture));
                }
            }
        }
        if !pieces.is_empty() {
            self.mentioned.extend(pieces.iter().copied());
            self.last_list = pieces;
        }
        Ok(targets)
    }

    /// The pieces a furniture phrase names; of several that nothing tells apart, the
    /// first, with a note.
    fn furniture(
        &mut self,
        sentence: &Sentence,
        item: &super::super::phrase::NounPhrase,
        phrase: &str,
    ) -> Result<Vec<usize>, ImportError> {
        let context = Context {
            room: self.room,
            mentioned: &self.mentioned,
            last_noun: self.last_noun,
            last_list: &self.last_list,
            reading: Reading::Situated,
        };
        match resolve::furniture(self.apartment, item, &context) {
            Ok(found) => Ok(found),
            Err(Unresolved::NotFound(reason)) => Err(self.error(sentence, phrase, &reason)),
            Err(Unresolved::Ambiguous(candidates)) => {
                let ids = self.apartment.furniture_ids();
                let names: Vec<&str> = candidates.iter().map(|&p| ids[p].as_str()).collect();
                self.note(
                    sentence,
                    format!(
                        "\"{phrase}\" could be {}; read as {}, the first",
                        names.join(" or "),
                        names[0]
                    ),
                );
                Ok(vec![candidates[0]])
            }
        }
    }

    /// "it" or "which".
    pub(super) fn single(&mut self, sentence: &Sentence, word: &str) -> Result<(), ImportError> {
        if self.one_by_one && self.focus.len() > 1 && !self.pending.is_empty() {
            // "opens each of the first three cabinets in turn and closes it again".
            return self.distributive(sentence, word);
        }
        let Some(&target) = self.focus.last() else {
            return if self.pending.is_empty() && self.motion != Motion::Destination {
                Ok(())
            } else {
                Err(self.error(sentence, word, "nothing has been named for it to refer to"))
            };
        };
        if !self.pending.is_empty() {
            let ops = std::mem::take(&mut self.pending);
            self.push(sentence, word, ops, vec![target])?;
        } else if self.motion == Motion::Destination {
            self.motion = Motion::Moving;
            self.loose_destination = false;
            self.push(sentence, word, vec![Op::Walk], vec![target])?;
        }
        Ok(())
    }

    /// "each", "both", "them": the waiting verbs apply to every place just listed.
    pub(super) fn distributive(
        &mut self,
        sentence: &Sentence,
        phrase: &str,
    ) -> Result<(), ImportError> {
        let reason = "nothing has been named for it to refer to";
        self.act_on_focus(sentence, phrase, reason, true)
    }

    /// The waiting verbs act on the places in focus: joined to the last step when it is
    /// about them and `spread`, else as a new step. `reason` is the error when nothing is
    /// in focus.
    fn act_on_focus(
        &mut self,
        sentence: &Sentence,
        phrase: &str,
        reason: &str,
        spread: bool,
    ) -> Result<(), ImportError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.focus.is_empty() {
            return Err(self.error(sentence, phrase, reason));
        }
        let (ops, focus) = (std::mem::take(&mut self.pending), self.focus.clone());
        if spread {
            self.push_spread(sentence, phrase, ops, focus)
        } else {
            self.push(sentence, phrase, ops, focus)
        }
    }

    /// A clause ends: waiting verbs act on the place in focus, "the same" is done to it.
    pub(super) fn end_clause(
        &mut self,
        sentence: &Sentence,
        phrase: &str,
    ) -> Result<(), ImportError> {
        self.flush(sentence, phrase)?;
        if self.repeat != Repeat::No {
            if self.repeat == Repeat::With {
                return Err(self.error(sentence, phrase, "\"with\" is not followed by a place"));
            }
            self.repeat = Repeat::No;
            if self.focus.is_empty() {
                return Err(self.error(sentence, phrase, "nothing has been done yet to do again"));
            }
            let (ops, focus) = (self.steps.template(), self.focus.clone());
            self.push_spread(sentence, phrase, ops, focus)?;
        }
        self.location = false;
        Ok(())
    }

    /// Waiting verbs act on the place in focus.
    pub(super) fn flush(&mut self, sentence: &Sentence, phrase: &str) -> Result<(), ImportError> {
        let reason = "the verb has no object and nothing is in focus";
        self.act_on_focus(sentence, phrase, reason, false)
    }

    /// Adds operations to the last step when it is about the same places ("walks to the
    /// seventh and eighth cabinets and gives them the same treatment"), else a new step.
    fn push_spread(
        &mut self,
        sentence: &Sentence,
        phrase: &str,
        ops: Vec<Op>,
        targets: Vec<Target>,
    ) -> Result<(), ImportError> {
        if self.steps.len() > self.steps_before && self.steps.spread(&ops, &targets) {
            return Ok(());
        }
        self.push(sentence, phrase, ops, targets)
    }

    pub(super) fn push(
        &mut self,
        sentence: &Sentence,
        phrase: &str,
        ops: Vec<Op>,
        targets: Vec<Target>,
    ) -> Result<(), ImportError> {
        if self.start.is_none() {
            return Err(self.error(
                sentence,
                phrase,
                "the agent acts before the narrative says which room it starts in",
            ));
        }
        if let Some(&last) = targets.last() {
            self.room = Some(self.room_of(last));
        }
        self.steps.push(ops, targets, self.sentence);
        Ok(())
    }

    /// The piece of furniture in focus, if one is.
    fn piece_in_focus(&self) -> Option<usize> {
        match self.focus.last() {
            Some(Target::Furniture(f)) => Some(*f),
            _ => None,
        }
    }

    fn room_of(&self, target: Target) -> usize {
        match target {
            Target::Room(r) => r,
            Target::Furniture(f) => self.apartment.furniture[f].room,
            Target::Object(o) => self.apartment.furniture[self.apartment.objects[o].at].room,
        }
    }
}
