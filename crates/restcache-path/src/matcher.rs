//! The key pattern of R-KEY-2, `^T/?([?&].*)?$` matched case-insensitively, compiled to a small
//! NFA and run by simulating every live state at once: time is at most (key length × program
//! length), memory is linear in the program, and no input can make it backtrack.

use crate::template::{PlaceholderKind, Template, Token};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inst {
    /// One character, compared case-insensitively.
    Char(char),
    /// `[^/?&]`: one character of a segment.
    Segment,
    /// `[?&]`: the start of the query tail.
    QueryStart,
    /// `.`: any character but `\n`.
    Any,
    /// Go on at both targets.
    Split(usize, usize),
    /// Go on at the target.
    Jump(usize),
    /// The whole input matched if it ends here.
    Match,
}

/// A compiled pattern for the part of a key after `METHOD + " " + url_prefix`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Program {
    insts: Vec<Inst>,
}

impl Program {
    /// Compiles `^T/?([?&].*)?$` for `template` (R-KEY-2).
    pub(crate) fn compile(template: &Template) -> Self {
        let mut compiler = Compiler { insts: Vec::new() };
        for token in &template.tokens {
            match token {
                Token::Text(text) => compiler.text(text),
                Token::Slot(index) => {
                    let placeholder = &template.placeholders[*index];
                    match placeholder.kind {
                        PlaceholderKind::Wildcard => compiler.plus(Inst::Any),
                        PlaceholderKind::Param if placeholder.optional => {
                            // `(?:/[^/?&]+)?` when it took over the `/`, else `(?:[^/?&]+)?`.
                            let split = compiler.emit(Inst::Split(0, 0));
                            if placeholder.slash_before {
                                compiler.emit(Inst::Char('/'));
                            }
                            compiler.plus(Inst::Segment);
                            compiler.optional(split);
                        }
                        PlaceholderKind::Param => compiler.plus(Inst::Segment),
                    }
                }
                Token::Group(tokens) => {
                    // `(?:X)?`
                    let split = compiler.emit(Inst::Split(0, 0));
                    for token in tokens {
                        match token {
                            Token::Text(text) => compiler.text(text),
                            Token::Slot(index) => match template.placeholders[*index].kind {
                                PlaceholderKind::Wildcard => compiler.plus(Inst::Any),
                                PlaceholderKind::Param => compiler.plus(Inst::Segment),
                            },
                            // The parser never nests groups.
                            Token::Group(_) => {}
                        }
                    }
                    compiler.optional(split);
                }
            }
        }
        // `/?`
        let split = compiler.emit(Inst::Split(0, 0));
        compiler.emit(Inst::Char('/'));
        compiler.optional(split);
        // `([?&].*)?$`
        let tail = compiler.emit(Inst::Split(0, 0));
        compiler.emit(Inst::QueryStart);
        let any_loop = compiler.emit(Inst::Split(0, 0));
        compiler.emit(Inst::Any);
        compiler.emit(Inst::Jump(any_loop));
        let end = compiler.emit(Inst::Match);
        compiler.insts[tail] = Inst::Split(tail + 1, end);
        compiler.insts[any_loop] = Inst::Split(any_loop + 1, end);
        Self { insts: compiler.insts }
    }

    /// Whether the whole of `input` matches.
    pub(crate) fn is_match(&self, input: &str) -> bool {
        let mut current = StateSet::new(self.insts.len());
        let mut next = StateSet::new(self.insts.len());
        let mut stack = Vec::new();
        self.add(&mut current, 0, &mut stack);
        for c in input.chars() {
            if current.states.is_empty() {
                return false;
            }
            next.clear();
            for &pc in &current.states {
                let consumed = match self.insts.get(pc) {
                    Some(Inst::Char(expected)) => same_ignoring_case(*expected, c),
                    Some(Inst::Segment) => !matches!(c, '/' | '?' | '&'),
                    Some(Inst::QueryStart) => matches!(c, '?' | '&'),
                    Some(Inst::Any) => c != '\n',
                    _ => false,
                };
                if consumed {
                    self.add(&mut next, pc + 1, &mut stack);
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        current
            .states
            .iter()
            .any(|&pc| self.insts.get(pc) == Some(&Inst::Match))
    }

    /// Adds `pc` and every state reachable from it without reading a character.
    fn add(&self, set: &mut StateSet, pc: usize, stack: &mut Vec<usize>) {
        stack.push(pc);
        while let Some(pc) = stack.pop() {
            if !set.insert(pc) {
                continue;
            }
            match self.insts.get(pc) {
                Some(Inst::Split(a, b)) => {
                    stack.push(*b);
                    stack.push(*a);
                }
                Some(Inst::Jump(a)) => stack.push(*a),
                _ => {}
            }
        }
    }
}

struct Compiler {
    insts: Vec<Inst>,
}

impl Compiler {
    fn emit(&mut self, inst: Inst) -> usize {
        self.insts.push(inst);
        self.insts.len() - 1
    }

    fn text(&mut self, text: &str) {
        self.insts.extend(text.chars().map(Inst::Char));
    }

    /// `inst+`: one, then a loop back.
    fn plus(&mut self, inst: Inst) {
        let first = self.emit(inst);
        let split = self.emit(Inst::Split(0, 0));
        self.insts[split] = Inst::Split(first, split + 1);
    }

    /// Closes `(?:…)?` opened by the placeholder `Split` at `split`: enter, or skip to here.
    fn optional(&mut self, split: usize) {
        self.insts[split] = Inst::Split(split + 1, self.insts.len());
    }
}

/// A set of program states, in insertion order, with O(1) membership.
struct StateSet {
    states: Vec<usize>,
    present: Vec<bool>,
}

impl StateSet {
    fn new(len: usize) -> Self {
        Self {
            states: Vec::new(),
            present: vec![false; len],
        }
    }

    fn insert(&mut self, pc: usize) -> bool {
        match self.present.get_mut(pc) {
            Some(present) if !*present => {
                *present = true;
                self.states.push(pc);
                true
            }
            _ => false,
        }
    }

    fn clear(&mut self) {
        for pc in self.states.drain(..) {
            self.present[pc] = false;
        }
    }
}

/// Case-insensitive equality of two characters (full Unicode lower- and upper-case mappings).
fn same_ignoring_case(a: char, b: char) -> bool {
    if a == b {
        return true;
    }
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(&b);
    }
    a.to_lowercase().eq(b.to_lowercase()) || a.to_uppercase().eq(b.to_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(template: &str, rest: &str) -> bool {
        Program::compile(&Template::parse(template).unwrap()).is_match(rest)
    }

    #[test]
    fn r_key_2_pattern_pieces() {
        // literal, case-insensitive
        assert!(matches("/Users", "/uSERS"));
        assert!(matches("/ü", "/Ü"));
        assert!(!matches("/users", "/user"));
        // `:name` is one non-empty segment
        assert!(matches("/u/:id", "/u/1"));
        assert!(!matches("/u/:id", "/u/"));
        assert!(!matches("/u/:id", "/u/1/2"));
        // `:name?` with the `/` inside
        assert!(matches("/u/:id?", "/u"));
        assert!(matches("/u/:id?", "/u/1"));
        assert!(matches("/u/:id?", "/u/"));
        assert!(!matches("/u/:id?", "/u/1/2"));
        // `:name?` without a `/` before it
        assert!(matches("q=:q?", "q="));
        assert!(matches("q=:q?", "q=x"));
        // `*name` is `.+`
        assert!(matches("/f/*path", "/f/a/b/c"));
        assert!(!matches("/f/*path", "/f/"));
        assert!(!matches("/f/*path", "/f/a\nb"));
        // `{X}` is `(?:X)?`
        assert!(matches("/p{/:id}", "/p"));
        assert!(matches("/p{/:id}", "/p/1"));
        assert!(!matches("/p{/:id}", "/p/1/2"));
        assert!(matches("{/:a}{/:b}", ""));
        assert!(matches("{/:a}{/:b}", "/1/2"));
        // the tail: one `/`, then a query
        assert!(matches("/p", "/p/"));
        assert!(!matches("/p", "/p//"));
        assert!(matches("/p", "/p/?a=1"));
        assert!(matches("/p", "/p&a"));
        assert!(!matches("/p", "/px"));
        assert!(matches("", ""));
        assert!(matches("", "?"));
    }

    #[test]
    fn case_folding() {
        assert!(same_ignoring_case('a', 'A'));
        assert!(same_ignoring_case('É', 'é'));
        assert!(!same_ignoring_case('a', 'b'));
        assert!(!same_ignoring_case('/', '?'));
    }
}
