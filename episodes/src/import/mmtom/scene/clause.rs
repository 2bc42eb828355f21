//! One clause of a scene read in one reading: which rooms and furniture it names or adds,
//! where its things go, and what it says is empty. A clause that leaves a choice forks
//! the reading (see the module docs of [`super`]).

use std::ops::Range;

use crate::import::{ImportError, Part};

use super::super::apartment::Apartment;
use super::super::lexicon::{FurnitureDef, Noun, ObjectDef};
use super::super::phrase::{Det, Head, NounPhrase, PhraseList, Quantifier};
use super::super::resolve::{self, Context, Reading, Unresolved};
use super::super::text::{span_text, Sentence};
use super::chunk::{Chunk, Things, EXCEPTIONS};
use super::spread::spreads;
use super::{Branch, Shared, MAX_COUNT, MAX_READINGS};
use crate::import::notes::Notes;

/// Prepositions that put things in or on the place after them.
pub(in super::super) const PLACE_PREPOSITIONS: &[&str] = &[
    "in",
    "inside",
    "on",
    "within",
    "into",
    "onto",
    "atop",
    "upon",
    "across",
    "throughout",
];

/// Words between a list of places and its things that mean "the last of them".
pub(in super::super) const RELATIVE_WORDS: &[&str] = &[
    "which",
    "that",
    "with",
    "containing",
    "housing",
    "holding",
    "where",
    "whose",
    "storing",
];

/// Words that make a clause about the place named last ("a cupcake is kept in it too").
const ANAPHORS: &[&str] = &[
    "it", "them", "inside", "within", "too", "also", "well", "likewise",
];

/// Words that make a clause about the places listed last ("both have a book on them").
const PLURAL_ANAPHORS: &[&str] = &["them", "they", "both", "each"];

/// Words that say pieces hold nothing.
const EMPTY_WORDS: &[&str] = &[
    "empty",
    "bare",
    "vacant",
    "unoccupied",
    "nothing",
    "none",
    "anything",
];

/// Where the things of one chunk go, as the clause says.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PlaceRef {
    /// Places each led to by its own preposition ("in the desk as well as in the
    /// cabinet"): every one gets the things.
    Chained(Vec<usize>),
    /// One list of places (its chunk index), and how the things go on its pieces.
    Chunk(usize, Mode),
    /// A room ("two apples in the kitchen"): some piece of it.
    Room(usize),
    /// The place named last ("in it").
    Last,
    /// The places listed last ("both have a book on them").
    LastList(Mode),
}

/// Where each thing of a chunk goes: (its class, the piece), in text order.
type Way = Vec<(&'static ObjectDef, usize)>;

/// How things go on the pieces of a list of places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every piece gets every thing.
    Each,
    /// The i-th thing goes on the i-th piece.
    Respectively,
    /// The last piece gets them ("a desk and a sofa, which has ...").
    Last,
    /// Nothing says which holds what.
    Spread,
}

/// A clause, ready to be read in any reading.
pub(super) struct ClauseReading<'a> {
    sentence: &'a Sentence,
    chunks: &'a [Chunk],
    /// Whether an earlier clause of the sentence named a place ("..., and a cupcake").
    continues: bool,
    /// The index of the sentence in the scene.
    index: usize,
    /// For each chunk of things, where they go (`None`: nowhere said).
    places: Vec<Option<PlaceRef>>,
}

/// One reading while a clause is read: the branch and the pieces each place chunk named.
#[derive(Clone)]
struct Work {
    branch: Branch,
    pieces: Vec<Vec<usize>>,
    declared: Vec<bool>,
}

impl<'a> ClauseReading<'a> {
    /// Reads the structure of a clause; `continues` when an earlier clause of its
    /// sentence named a place.
    pub(super) fn new(
        sentence: &'a Sentence,
        index: usize,
        chunks: &'a [Chunk],
        continues: bool,
    ) -> Self {
        let mut reading = Self {
            sentence,
            chunks,
            continues,
            index,
            places: Vec::new(),
        };
        reading.places = (0..chunks.len())
            .map(|c| match chunks[c] {
                Chunk::Things(_) | Chunk::Denied(_) => reading.place_of(c),
                _ => None,
            })
            .collect();
        reading
    }

    /// Whether the clause names a piece of furniture.
    pub(super) fn names_a_place(&self) -> bool {
        self.chunks.iter().any(|c| matches!(c, Chunk::Places(_)))
    }

    fn error(&self, span: Range<usize>, reason: impl Into<String>) -> ImportError {
        ImportError::Unreadable {
            part: Part::Scene,
            sentence: self.sentence.text.clone(),
            phrase: span_text(&self.sentence.tokens, span),
            reason: reason.into(),
        }
    }

    fn note(&self, notes: &mut Notes, reading: impl Into<String>) {
        notes.add(Part::Scene, &self.sentence.text, reading);
    }

    fn phrase(&self, span: Range<usize>) -> String {
        span_text(&self.sentence.tokens, span)
    }

    /// Reads the clause in `branch`: the readings it leads to.
    pub(super) fn apply(
        &self,
        mut branch: Branch,
        shared: &mut Shared,
        notes: &mut Notes,
    ) -> Result<Vec<Branch>, ImportError> {
        let rooms = self.rooms(&mut branch, shared);
        let mut work = vec![Work {
            pieces: vec![Vec::new(); self.chunks.len()],
            declared: vec![false; self.chunks.len()],
            branch,
        }];
        for c in 0..self.chunks.len() {
            if let Chunk::Places(list) = &self.chunks[c] {
                let mut next = Vec::new();
                for w in work {
                    next.extend(self.places(w, c, list, &rooms, shared, notes)?);
                }
                work = cap(next);
            }
        }
        for w in &mut work {
            self.take_exceptions(w);
        }
        for c in 0..self.chunks.len() {
            if let Chunk::Things(things) = &self.chunks[c] {
                let mut next = Vec::new();
                for w in work {
                    next.extend(self.things(w, c, things, notes)?);
                }
                work = cap(next);
            }
        }
        if let (Some(things), Some(p)) = (&shared.last_things, self.same_again()) {
            // "So does the stove", "the same goes for the stove": the things placed last,
            // again, on each piece named here.
            self.note(
                notes,
                format!(
                    "the things placed last go here too: \"{}\"",
                    self.phrase(things.span.clone())
                ),
            );
            for w in &mut work {
                for &piece in &w.pieces[p].clone() {
                    for (def, count, _) in &things.items {
                        for _ in 0..count.unwrap_or(1) {
                            w.branch.apartment.add_object(def, piece);
                        }
                    }
                }
            }
        }
        Ok(work.into_iter().map(|w| self.finish(w)).collect())
    }

    /// For a clause that names places and no things but says "so does", "the same goes
    /// for", "likewise": its place chunk.
    fn same_again(&self) -> Option<usize> {
        let has_things = self
            .chunks
            .iter()
            .any(|c| matches!(c, Chunk::Things(_) | Chunk::Denied(_)));
        let says = self.chunks.windows(2).any(|w| {
            (w[0].is("so") && w[1].is_any(&["does", "do", "did", "has", "have"]))
                || (w[0].is("as") && w[1].is_any(&["does", "do"]))
        }) || self
            .chunks
            .iter()
            .any(|c| c.is_any(&["same", "likewise", "similarly"]));
        if has_things || !says {
            return None;
        }
        self.chunks
            .iter()
            .position(|c| matches!(c, Chunk::Places(_)))
    }

    /// Adds the rooms the clause names; returns, per chunk, the rooms named in it, and
    /// makes a single room the one the text describes.
    fn rooms(&self, branch: &mut Branch, shared: &mut Shared) -> Vec<Vec<usize>> {
        let mut named = Vec::new();
        let per_chunk = self
            .chunks
            .iter()
            .map(|c| match c {
                Chunk::Rooms(list) => list
                    .items
                    .iter()
                    .filter_map(|item| match item.head {
                        Head::Noun(Noun::Room(r)) => {
                            let index = branch.apartment.room(r);
                            if !named.contains(&index) {
                                named.push(index);
                            }
                            Some(index)
                        }
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        match named.as_slice() {
            [one] => shared.room = Some(*one),
            [] => {}
            _ => shared.room = None,
        }
        if let Some(&last) = named.last() {
            shared.last_named_room = Some(last);
        }
        if !named.is_empty() {
            shared.last_rooms = named;
        }
        per_chunk
    }

    /// The rooms a furniture chunk is in: the room list nearest before it in the clause,
    /// else one after it ("a fridge in the kitchen"), else the room described.
    fn rooms_of(&self, c: usize, rooms: &[Vec<usize>], shared: &Shared) -> Vec<usize> {
        let before = (0..c).rev().find(|&k| !rooms[k].is_empty());
        let after = (c + 1..self.chunks.len()).find(|&k| !rooms[k].is_empty());
        let each = self
            .chunks
            .iter()
            .any(|x| x.is_any(&["each", "every", "both", "all"]));
        match (before, after) {
            (Some(k), _) | (None, Some(k)) => rooms[k].clone(),
            // "The apartment has a bedroom and a bathroom, and each has a cabinet."
            (None, None) if shared.room.is_none() && each => shared.last_rooms.clone(),
            (None, None) => shared.room.into_iter().collect(),
        }
    }

    /// Whether some things of the clause go on chunk `c`.
    fn is_target(&self, c: usize) -> bool {
        self.places.iter().flatten().any(|p| match p {
            PlaceRef::Chunk(k, _) => *k == c,
            PlaceRef::Chained(ks) => ks.contains(&c),
            _ => false,
        })
    }

    /// Reads a list of furniture in one reading: the readings of which pieces it names.
    fn places(
        &self,
        w: Work,
        c: usize,
        list: &PhraseList,
        rooms: &[Vec<usize>],
        shared: &mut Shared,
        notes: &mut Notes,
    ) -> Result<Vec<Work>, ImportError> {
        let mut room_list = self.rooms_of(c, rooms, shared);
        // "a coffee table and a desk in the bedroom": the room of the list's last piece is
        // the room of them all.
        if let Some(r) = list.items.iter().rev().find_map(|i| i.room) {
            if list.items.iter().all(|i| i.det == Det::Indefinite) {
                room_list = vec![w
                    .branch
                    .apartment
                    .rooms
                    .iter()
                    .position(|x| *x == r)
                    .unwrap_or(0)];
            }
        }
        let mut out = vec![w];
        for item in &list.items {
            let mut next = Vec::new();
            for mut w in out {
                let choices = self.piece_choices(&mut w, c, item, &room_list, shared, notes)?;
                for pieces in choices {
                    let mut w = w.clone();
                    w.pieces[c].extend(pieces);
                    // "a desk and a sofa, the latter ...": later phrases see this list.
                    w.branch.last_place = w.pieces[c].last().copied();
                    if w.pieces[c].len() > 1 {
                        w.branch.last_list = w.pieces[c].clone();
                    }
                    next.push(w);
                }
            }
            out = cap(next);
            if let Head::Noun(Noun::Furniture(f)) = item.head {
                shared.last_noun = Some(f);
            }
            if let Some(r) = item.room {
                shared.last_named_room = out[0].branch.apartment.rooms.iter().position(|x| *x == r);
            }
        }
        Ok(out)
    }

    /// The pieces one furniture phrase may name in one reading, one entry per reading:
    /// the pieces it adds, or those it refers to.
    fn piece_choices(
        &self,
        w: &mut Work,
        c: usize,
        item: &NounPhrase,
        rooms: &[usize],
        shared: &Shared,
        notes: &mut Notes,
    ) -> Result<Vec<Vec<usize>>, ImportError> {
        // "a fridge in the kitchen", "the kitchen sofa": the phrase names its room;
        // "the coffee table there": the room named last.
        let own_room = match (item.room, item.there) {
            (Some(r), _) => Some(vec![w.branch.apartment.room(r)]),
            (None, true) => shared.last_named_room.map(|r| vec![r]),
            (None, false) => None,
        };
        let rooms = own_room.as_deref().unwrap_or(rooms);
        let plain = item.det == Det::Indefinite
            && item.ordinals.is_empty()
            && !item.one_of
            && item.quantifier.is_none();
        if let (Head::Noun(Noun::Furniture(f)), true) = (item.head, plain) {
            let apartment = &w.branch.apartment;
            let has = |room: usize| {
                apartment.series_len(room, f.in_room(apartment.rooms[room].id).class) > 0
            };
            // "a book lies on a desk" in a room with desks names one of them.
            let refers = self.is_target(c) && rooms.len() == 1 && has(rooms[0]);
            if !refers {
                w.declared[c] = true;
                return self.declare(&mut w.branch.apartment, item, f, rooms);
            }
        }
        let room = rooms.first().copied().or(shared.room);
        self.refer(w, item, room, shared, notes)
    }

    /// Adds the pieces an indefinite phrase declares ("four cabinets") to each of `rooms`.
    fn declare(
        &self,
        apartment: &mut Apartment,
        item: &NounPhrase,
        f: &'static FurnitureDef,
        rooms: &[usize],
    ) -> Result<Vec<Vec<usize>>, ImportError> {
        if rooms.is_empty() {
            return Err(self.error(
                item.span.clone(),
                "no room has been described yet to put it in",
            ));
        }
        let count = item.count.unwrap_or(1);
        if count > MAX_COUNT {
            return Err(self.error(
                item.span.clone(),
                format!("more than {MAX_COUNT} pieces of one kind in one phrase"),
            ));
        }
        let mut added = Vec::new();
        for &room in rooms {
            let def = f.in_room(apartment.rooms[room].id);
            added.extend(apartment.add_furniture(def, room, count));
        }
        Ok(vec![added])
    }

    /// The pieces a phrase refers to in one reading, one entry per reading it allows.
    fn refer(
        &self,
        w: &mut Work,
        item: &NounPhrase,
        room: Option<usize>,
        shared: &Shared,
        notes: &mut Notes,
    ) -> Result<Vec<Vec<usize>>, ImportError> {
        let context = Context {
            room,
            mentioned: &w.branch.mentioned,
            last_noun: shared.last_noun,
            last_list: &w.branch.last_list,
            reading: Reading::Situated,
        };
        let apartment = &w.branch.apartment;
        let one_each = |candidates: Vec<usize>, notes: &mut Notes| {
            if candidates.len() > 1 {
                let phrase = self.phrase(item.span.clone());
                let ids = apartment.ids_of(&candidates).join(" or ");
                self.note(
                    notes,
                    format!("\"{phrase}\" could be {ids}: one reading each"),
                );
            }
            candidates.into_iter().map(|p| vec![p]).collect()
        };
        match resolve::furniture(apartment, item, &context) {
            Ok(pieces) if item.one_of => {
                // "one of the desks", "one of them": any of them.
                let all = if item.head == Head::Them {
                    pieces
                } else {
                    let every = NounPhrase {
                        one_of: false,
                        plural: true,
                        ..item.clone()
                    };
                    resolve::furniture(apartment, &every, &context).unwrap_or(pieces)
                };
                Ok(one_each(all, notes))
            }
            Ok(pieces) => Ok(vec![pieces]),
            Err(Unresolved::Ambiguous(candidates)) if !item.plural => {
                Ok(one_each(candidates, notes))
            }
            Err(Unresolved::Ambiguous(candidates)) => Ok(vec![candidates]),
            Err(Unresolved::NotFound(why)) => {
                let unlisted = item.ordinals.is_empty()
                    && !item.one_of
                    && !item.plural
                    && item.quantifier.is_none();
                match (item.head, room) {
                    (Head::Noun(Noun::Furniture(f)), Some(room)) if unlisted => {
                        Ok(vec![self.add_unlisted(
                            &mut w.branch.apartment,
                            item,
                            f,
                            room,
                            notes,
                        )])
                    }
                    (_, None) => Err(self.error(
                        item.span.clone(),
                        format!("{why}; no room has been described yet"),
                    )),
                    _ => Err(self.error(item.span.clone(), why)),
                }
            }
        }
    }

    /// Adds a piece a definite phrase names but no inventory listed ("the dishwasher"): to
    /// the room such pieces belong in when the apartment has it (a kitchen for a
    /// dishwasher), else to the room being described.
    fn add_unlisted(
        &self,
        apartment: &mut Apartment,
        item: &NounPhrase,
        f: &'static FurnitureDef,
        described: usize,
        notes: &mut Notes,
    ) -> Vec<usize> {
        let room = f
            .home_room()
            .and_then(|home| apartment.rooms.iter().position(|r| r.id == home))
            .unwrap_or(described);
        let def = f.in_room(apartment.rooms[room].id);
        let added = apartment.add_furniture(def, room, 1);
        let phrase = self.phrase(item.span.clone());
        let id = apartment.rooms[room].id;
        self.note(
            notes,
            format!("\"{phrase}\" was not listed; one is added to the {id}"),
        );
        added
    }

    /// Takes the pieces of an exception ("but the third") out of the quantified list
    /// before it.
    fn take_exceptions(&self, w: &mut Work) {
        for c in 0..self.chunks.len() {
            if let Some(k) = self.exception_of(c) {
                let out = w.pieces[c].clone();
                w.pieces[k].retain(|p| !out.contains(p));
            }
        }
    }

    /// For a place chunk that is an exception ("except the first"), the quantified chunk
    /// it takes pieces out of.
    fn exception_of(&self, c: usize) -> Option<usize> {
        if !matches!(self.chunks[c], Chunk::Places(_)) {
            return None;
        }
        let mut k = c.checked_sub(1)?;
        let mut saw_exception = false;
        while k > 0 && matches!(&self.chunks[k], Chunk::Word(_) | Chunk::Comma) {
            saw_exception |= self.chunks[k].is_any(EXCEPTIONS);
            if let Chunk::Word(w) = &self.chunks[k] {
                if !EXCEPTIONS.contains(&w.as_str())
                    && !matches!(w.as_str(), "from" | "than" | "for" | "of" | "with" | "the")
                {
                    return None;
                }
            }
            k -= 1;
        }
        saw_exception |= self.chunks[k].is_any(EXCEPTIONS);
        let quantified = |k: usize| matches!(&self.chunks[k], Chunk::Places(l) if l.items.iter().any(|p| p.quantifier.is_some()));
        if !saw_exception {
            return None;
        }
        if quantified(k) {
            return Some(k);
        }
        // "Apart from the fridge, none of the cabinets ...": the quantified list follows.
        (c + 1..self.chunks.len()).find(|&j| quantified(j))
    }

    /// Places one chunk of things in one reading: the readings of where they go.
    fn things(
        &self,
        w: Work,
        c: usize,
        things: &Things,
        notes: &mut Notes,
    ) -> Result<Vec<Work>, ImportError> {
        for (_, count, span) in &things.items {
            if count.is_some_and(|n| n > MAX_COUNT) {
                return Err(self.error(
                    span.clone(),
                    format!("more than {MAX_COUNT} of one kind in one phrase"),
                ));
            }
        }
        if things.header {
            return Ok(vec![w]);
        }
        let Some(place) = &self.places[c] else {
            return Err(self.error(things.span.clone(), "no place is named for them"));
        };
        let ways = self.ways(&w, place, things, notes)?;
        let phrase = self.phrase(things.span.clone());
        if ways.len() > 1 {
            self.note(
                notes,
                format!(
                    "\"{phrase}\": the text does not say which piece holds what; {} readings",
                    ways.len()
                ),
            );
        }
        Ok(ways
            .into_iter()
            .map(|way| {
                let mut w = w.clone();
                for (def, piece) in way {
                    w.branch.apartment.add_object(def, piece);
                }
                w
            })
            .collect())
    }

    /// The ways the things of a chunk may go, each a list of (class, piece) in text order.
    fn ways(
        &self,
        w: &Work,
        place: &PlaceRef,
        things: &Things,
        notes: &mut Notes,
    ) -> Result<Vec<Way>, ImportError> {
        if let PlaceRef::Room(k) = place {
            return self.somewhere_in_room(w, *k, things, notes);
        }
        let (pieces, mode) = self.pieces_of(w, place, things, notes)?;
        let one = match (pieces.as_slice(), mode) {
            ([], _) => {
                return Err(self.error(
                    things.span.clone(),
                    "the place named for them is no piece of furniture",
                ))
            }
            ([piece], _) => Some(*piece),
            (_, Mode::Last) => pieces.last().copied(),
            _ => None,
        };
        if let Some(piece) = one {
            let all = self.counted(things, 2, notes);
            return Ok(vec![all.into_iter().map(|d| (d, piece)).collect()]);
        }
        match mode {
            Mode::Last | Mode::Each => {
                let all = self.counted(things, 1, notes);
                Ok(vec![pieces
                    .iter()
                    .flat_map(|&p| all.iter().map(move |&d| (d, p)))
                    .collect()])
            }
            Mode::Respectively => self.respectively(things, &pieces).map(|way| vec![way]),
            Mode::Spread => Ok(self.spread(things, &pieces, notes)),
        }
    }

    /// The pieces a place stands for in one reading, and how things go on them.
    fn pieces_of(
        &self,
        w: &Work,
        place: &PlaceRef,
        things: &Things,
        notes: &mut Notes,
    ) -> Result<(Vec<usize>, Mode), ImportError> {
        let branch = &w.branch;
        Ok(match place {
            PlaceRef::Chained(chunks) => (
                chunks.iter().flat_map(|&k| w.pieces[k].clone()).collect(),
                Mode::Each,
            ),
            PlaceRef::Chunk(k, mode) => (w.pieces[*k].clone(), *mode),
            // "each of the microwave and cabinet 7: a plate".
            PlaceRef::Last
                if branch.last_each && branch.last_list.last() == branch.last_place.as_ref() =>
            {
                (branch.last_list.clone(), Mode::Each)
            }
            PlaceRef::Last => {
                let Some(last) = branch.last_place else {
                    return Err(self.error(things.span.clone(), "no place is named for them"));
                };
                let phrase = self.phrase(things.span.clone());
                let id = &branch.apartment.ids_of(&[last])[0];
                self.note(
                    notes,
                    format!("\"{phrase}\" go where the text was last: {id}"),
                );
                (vec![last], Mode::Each)
            }
            PlaceRef::LastList(mode) if !branch.last_list.is_empty() => {
                (branch.last_list.clone(), *mode)
            }
            PlaceRef::LastList(_) => {
                return Err(self.error(things.span.clone(), "no places were listed for them"))
            }
            PlaceRef::Room(_) => unreachable!("rooms are read by somewhere_in_room"),
        })
    }

    /// Things put in a room ("two apples in the kitchen"): all of them on any one piece
    /// there, one reading per piece.
    fn somewhere_in_room(
        &self,
        w: &Work,
        k: usize,
        things: &Things,
        notes: &mut Notes,
    ) -> Result<Vec<Way>, ImportError> {
        let Some(Head::Noun(Noun::Room(r))) = (match &self.chunks[k] {
            Chunk::Rooms(list) => list.items.first().map(|i| i.head),
            _ => None,
        }) else {
            return Err(self.error(things.span.clone(), "no place is named for them"));
        };
        let a = &w.branch.apartment;
        let room = a.rooms.iter().position(|x| *x == r);
        let in_room: Vec<usize> = (0..a.furniture.len())
            .filter(|&p| Some(a.furniture[p].room) == room)
            .collect();
        if in_room.is_empty() {
            return Err(self.error(
                things.span.clone(),
                format!("the {} has no furniture to put them in or on", r.id),
            ));
        }
        if in_room.len() > 1 {
            let phrase = self.phrase(things.span.clone());
            let reading = format!(
                "\"{phrase}\" are somewhere in the {}: one reading per piece there",
                r.id
            );
            self.note(notes, reading);
        }
        let all = self.counted(things, 1, notes);
        Ok(in_room
            .into_iter()
            .map(|p| all.iter().map(|&d| (d, p)).collect())
            .collect())
    }

    /// The i-th thing on the i-th piece ("... respectively").
    fn respectively(&self, things: &Things, pieces: &[usize]) -> Result<Way, ImportError> {
        if things.items.len() != pieces.len() {
            return Err(self.error(
                things.span.clone(),
                format!(
                    "\"respectively\" pairs {} things with {} places",
                    things.items.len(),
                    pieces.len()
                ),
            ));
        }
        Ok(things
            .items
            .iter()
            .zip(pieces)
            .flat_map(|((def, n, _), &p)| std::iter::repeat_n((*def, p), n.unwrap_or(1) as usize))
            .collect())
    }

    /// Every way of spreading things over pieces when nothing says which holds what.
    fn spread(&self, things: &Things, pieces: &[usize], notes: &mut Notes) -> Vec<Way> {
        let all = self.counted_spread(things, pieces.len(), notes);
        let classes: Vec<&str> = all.iter().map(|d| d.class).collect();
        let (ways, cut) = spreads(&classes, pieces, MAX_READINGS);
        if cut {
            let phrase = self.phrase(things.span.clone());
            self.note(notes, format!("\"{phrase}\" can be spread in more than {MAX_READINGS} ways; the first {MAX_READINGS} are kept"));
        }
        ways.into_iter()
            .map(|way| all.iter().copied().zip(way).collect())
            .collect()
    }

    /// The things of a chunk, one entry per object; a count the text does not give is
    /// `unsaid`.
    fn counted(&self, things: &Things, unsaid: u32, notes: &mut Notes) -> Vec<&'static ObjectDef> {
        let mut out = Vec::new();
        for (def, count, span) in &things.items {
            let n = count.unwrap_or_else(|| {
                self.note(
                    notes,
                    format!(
                        "\"{}\": how many is not said; read as {unsaid}",
                        self.phrase(span.clone())
                    ),
                );
                unsaid
            });
            out.extend(std::iter::repeat_n(*def, n as usize));
        }
        out
    }

    /// As [`Self::counted`], for things spread over `pieces` pieces: a count not given
    /// is one on each.
    fn counted_spread(
        &self,
        things: &Things,
        pieces: usize,
        notes: &mut Notes,
    ) -> Vec<&'static ObjectDef> {
        let unsaid = u32::try_from(pieces).unwrap_or(u32::MAX).max(2);
        self.counted(things, unsaid, notes)
    }

    /// The branch after the clause: what it named, and what it says holds nothing.
    fn finish(&self, mut w: Work) -> Branch {
        let sentence = self.index;
        let says_empty = self.chunks.iter().any(|c| c.is_any(EMPTY_WORDS))
            && !self.chunks.iter().any(|c| matches!(c, Chunk::Things(_)));
        for c in 0..self.chunks.len() {
            match &self.chunks[c] {
                Chunk::Places(list) => {
                    let none_of = list
                        .items
                        .iter()
                        .any(|p| p.quantifier == Some(Quantifier::NoneOf));
                    let exception = self.exception_of(c).is_some();
                    if (says_empty || none_of) && !exception {
                        for &p in &w.pieces[c] {
                            w.branch.empties.push((p, None, sentence));
                        }
                    }
                    if !w.declared[c] {
                        for &p in &w.pieces[c] {
                            w.branch.mentioned.retain(|&q| q != p);
                            w.branch.mentioned.push(p);
                        }
                    }
                    if w.pieces[c].len() > 1 {
                        w.branch.last_list = w.pieces[c].clone();
                        w.branch.last_each = self.one_by_one(list);
                    }
                    if let Some(&last) = w.pieces[c].last() {
                        w.branch.last_place = Some(last);
                    }
                }
                Chunk::Denied(list) => {
                    let pieces = match &self.places[c] {
                        Some(PlaceRef::Chunk(k, _)) => w.pieces[*k].clone(),
                        Some(PlaceRef::Chained(ks)) => {
                            ks.iter().flat_map(|&k| w.pieces[k].clone()).collect()
                        }
                        _ => Vec::new(),
                    };
                    for item in &list.items {
                        if let Head::Noun(Noun::Object(def)) = item.head {
                            for &p in &pieces {
                                w.branch.empties.push((p, Some(def), sentence));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        w.branch
    }
}

/// At most a bounded number of readings while a clause is read.
fn cap(mut work: Vec<Work>) -> Vec<Work> {
    work.truncate(MAX_READINGS * 4);
    work
}

impl ClauseReading<'_> {
    /// Where the things of chunk `c` go, as the clause says (see the module docs).
    fn place_of(&self, c: usize) -> Option<PlaceRef> {
        // A preposition right after the things wins ("two in the first cabinet, one on
        // the table"); then a place put first ("in the first cabinet there is a cupcake,
        // in the second a plate"); then a preposition after a comma.
        let chunks = self.chunks;
        if let (Some(place), _) = self.after(c, false) {
            return Some(place);
        }
        if let Some(j) = self.fronted_place(c) {
            return Some(PlaceRef::Chunk(j, self.mode(j, c)));
        }
        let (after, after_bare) = self.after(c, true);
        if let Some(place) = after {
            return Some(place);
        }
        if let Some(j) = self.nearest_before(c) {
            return Some(PlaceRef::Chunk(j, self.mode(j, c)));
        }
        if let Some(j) = after_bare {
            return Some(PlaceRef::Chunk(j, self.mode(j, c)));
        }
        if chunks.iter().any(|x| x.is_any(PLURAL_ANAPHORS)) {
            // "both have a book on them", "each holds a plate", "they contain ...".
            let each = chunks
                .iter()
                .any(|x| x.is_any(&["both", "each", "every", "all", "apiece"]));
            return Some(PlaceRef::LastList(if each {
                Mode::Each
            } else {
                Mode::Spread
            }));
        }
        let anaphor = chunks.iter().any(|x| x.is_any(ANAPHORS));
        (anaphor || self.continues).then_some(PlaceRef::Last)
    }

    /// The place a preposition after the things of chunk `c` leads to, looking past commas
    /// only when `past_commas`; and the first place chunk after them with no preposition.
    fn after(&self, c: usize, past_commas: bool) -> (Option<PlaceRef>, Option<usize>) {
        let chunks = self.chunks;
        let mut k = c + 1;
        while k < chunks.len() {
            match &chunks[k] {
                Chunk::Word(w) if PLACE_PREPOSITIONS.contains(&w.as_str()) => {
                    match self.led_to(k + 1) {
                        Led::Places(j) => {
                            let chain = self.chain(j);
                            let place = if chain.len() > 1 {
                                PlaceRef::Chained(chain)
                            } else {
                                PlaceRef::Chunk(j, self.mode(j, c))
                            };
                            return (Some(place), None);
                        }
                        Led::Room(j) => return (Some(PlaceRef::Room(j)), None),
                        Led::It(plural) => {
                            let none = if plural {
                                PlaceRef::LastList(Mode::Each)
                            } else {
                                PlaceRef::Last
                            };
                            let place = self.nearest_before(c).map_or(none, |j| {
                                // "with a book on it": the last piece; "on them": as listed.
                                let mode = match self.mode(j, c) {
                                    Mode::Spread if !plural => Mode::Last,
                                    mode => mode,
                                };
                                PlaceRef::Chunk(j, mode)
                            });
                            return (Some(place), None);
                        }
                        Led::Nothing => k += 1,
                    }
                }
                Chunk::Word(w)
                    if matches!(w.as_str(), "and" | "but" | "which" | "while" | "whereas") =>
                {
                    break
                }
                Chunk::Places(_) => return (None, Some(k)),
                Chunk::Comma if !past_commas => break,
                Chunk::Things(_) | Chunk::Denied(_) | Chunk::Rooms(_) | Chunk::Break => break,
                _ => k += 1,
            }
        }
        (None, None)
    }

    /// A place chunk led to by a preposition before the things of chunk `c`, with only
    /// words between ("in the first cabinet there is a cupcake").
    fn fronted_place(&self, c: usize) -> Option<usize> {
        let j = (0..c)
            .rev()
            .find(|&k| !matches!(self.chunks[k], Chunk::Word(_) | Chunk::Comma))?;
        let led = matches!(self.chunks[j], Chunk::Places(_))
            && j.checked_sub(1)
                .is_some_and(|p| self.chunks[p].is_any(PLACE_PREPOSITIONS));
        led.then_some(j)
    }

    /// The place chunk nearest before chunk `c`; an exception ("except the first") only
    /// when a relative word ties the things to it ("except the first, which holds ...").
    fn nearest_before(&self, c: usize) -> Option<usize> {
        (0..c).rev().find(|&k| {
            matches!(self.chunks[k], Chunk::Places(_))
                && (self.exception_of(k).is_none()
                    || self.chunks[k + 1..c]
                        .iter()
                        .any(|x| x.is_any(RELATIVE_WORDS)))
        })
    }

    /// What the words after a preposition lead to, skipping a few words ("the top shelf
    /// of the fridge").
    fn led_to(&self, from: usize) -> Led {
        for k in from..(from + 4).min(self.chunks.len()) {
            match &self.chunks[k] {
                Chunk::Places(_) => return Led::Places(k),
                Chunk::Rooms(_) => return Led::Room(k),
                Chunk::Word(w) if matches!(w.as_str(), "it" | "which" | "there") => {
                    return Led::It(false)
                }
                Chunk::Word(w) if w == "them" => return Led::It(true),
                Chunk::Word(_) => {}
                _ => return Led::Nothing,
            }
        }
        if from >= self.chunks.len()
            || matches!(self.chunks.get(from), Some(Chunk::Comma | Chunk::Break))
        {
            // "... with an apple inside.": the place in view.
            return Led::It(false);
        }
        Led::Nothing
    }

    /// Place chunk `j` and those chained after it by their own prepositions.
    fn chain(&self, j: usize) -> Vec<usize> {
        let mut out = vec![j];
        let mut k = j + 1;
        while k < self.chunks.len() {
            match &self.chunks[k] {
                Chunk::Comma => k += 1,
                Chunk::Word(w)
                    if matches!(
                        w.as_str(),
                        "and" | "as" | "well" | "plus" | "along" | "together" | "or" | "also"
                    ) =>
                {
                    k += 1
                }
                Chunk::Word(w) if PLACE_PREPOSITIONS.contains(&w.as_str()) => {
                    match self.chunks.get(k + 1) {
                        // ", on the sofa are two glasses": a place with things of its own.
                        Some(Chunk::Places(_)) if self.fronts_things(k + 1) => break,
                        Some(Chunk::Places(_)) => {
                            out.push(k + 1);
                            k += 2;
                        }
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        out
    }

    /// Whether place chunk `p` is followed by things of its own before the clause ends.
    fn fronts_things(&self, p: usize) -> bool {
        self.chunks[p + 1..]
            .iter()
            .take_while(|c| !matches!(c, Chunk::Break | Chunk::Places(_)) && !c.is("and"))
            .any(|c| matches!(c, Chunk::Things(_) | Chunk::Denied(_)))
    }

    /// How things go on the pieces of place chunk `p` (see [`Mode`]).
    fn mode(&self, p: usize, c: usize) -> Mode {
        let Chunk::Places(list) = &self.chunks[p] else {
            return Mode::Spread;
        };
        let (lo, hi) = (p.min(c), p.max(c));
        let between = |words: &[&str]| self.chunks[lo + 1..hi].iter().any(|x| x.is_any(words));
        if self.chunks[c + 1..]
            .iter()
            .take_while(|x| !matches!(x, Chunk::Break))
            .any(|x| x.is("respectively"))
        {
            return Mode::Respectively;
        }
        if self.one_by_one(list) {
            return Mode::Each;
        }
        if p < c && between(RELATIVE_WORDS) {
            return Mode::Last;
        }
        Mode::Spread
    }

    /// Whether the clause means the places of `list` one by one ("each", "both", "all").
    fn one_by_one(&self, list: &PhraseList) -> bool {
        self.chunks
            .iter()
            .any(|x| x.is_any(&["each", "both", "every", "apiece"]))
            || list.both
            || list
                .items
                .iter()
                .any(|i| matches!(i.quantifier, Some(Quantifier::All | Quantifier::NoneOf)))
    }
}

/// What a preposition leads to.
enum Led {
    Places(usize),
    Room(usize),
    /// "it" (`false`) or "them" (`true`): a place named before.
    It(bool),
    Nothing,
}
