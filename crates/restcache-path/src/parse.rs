//! The template parser: one left-to-right pass that builds the tokens and enforces R-PATH-2.
//!
//! The first offending character in the pass is the one reported. A group's own faults (no
//! parameter in it, never closed) are reported at its `{`.

use std::collections::HashSet;

use crate::error::TemplateError;
use crate::template::{Placeholder, PlaceholderKind, Template, Token};

pub(crate) fn parse(source: &str) -> Result<Template, TemplateError> {
    let mut parser = Parser {
        source,
        top: Vec::new(),
        group: None,
        text: String::new(),
        text_ends_with_slash: false,
        placeholders: Vec::new(),
        names: HashSet::new(),
    };
    parser.run()?;
    Ok(Template {
        source: source.to_owned(),
        tokens: parser.top,
        placeholders: parser.placeholders,
    })
}

/// An open `{…}` group.
struct OpenGroup {
    start: usize,
    tokens: Vec<Token>,
}

struct Parser<'a> {
    source: &'a str,
    top: Vec<Token>,
    group: Option<OpenGroup>,
    /// Literal text not yet pushed as a token.
    text: String,
    /// `text` ends with an unescaped `/` (an optional parameter right after takes it over).
    text_ends_with_slash: bool,
    placeholders: Vec<Placeholder>,
    names: HashSet<&'a str>,
}

impl<'a> Parser<'a> {
    fn error(&self, index: usize, reason: impl Into<String>) -> TemplateError {
        TemplateError::new(self.source, index, reason)
    }

    fn run(&mut self) -> Result<(), TemplateError> {
        let source = self.source;
        let mut pos = 0;
        while let Some(c) = source[pos..].chars().next() {
            let next = pos + c.len_utf8();
            pos = match c {
                '\\' => match source[next..].chars().next() {
                    Some(escaped) => {
                        self.push_literal(escaped, true);
                        next + escaped.len_utf8()
                    }
                    None => {
                        return Err(self.error(pos, "trailing lone `\\` (escape a backslash as `\\\\`)"));
                    }
                },
                ':' => self.placeholder(pos, PlaceholderKind::Param)?,
                '*' => self.placeholder(pos, PlaceholderKind::Wildcard)?,
                '?' => {
                    return Err(self.error(
                        pos,
                        "`?` must directly follow a parameter name (escape a literal question mark as `\\?`)",
                    ));
                }
                '{' => {
                    self.open_group(pos)?;
                    next
                }
                '}' => {
                    self.close_group(pos)?;
                    next
                }
                '(' | ')' | '[' | ']' | '+' | '!' => {
                    return Err(self.error(pos, format!("unescaped `{c}` (escape it as `\\{c}`)")));
                }
                _ => {
                    self.push_literal(c, false);
                    next
                }
            };
        }
        self.flush_text();
        if let Some(group) = &self.group {
            return Err(self.error(group.start, "unbalanced `{`: the group is never closed"));
        }
        Ok(())
    }

    fn push_literal(&mut self, c: char, escaped: bool) {
        self.text.push(c);
        self.text_ends_with_slash = c == '/' && !escaped;
    }

    fn flush_text(&mut self) {
        self.text_ends_with_slash = false;
        if !self.text.is_empty() {
            let text = Token::Text(std::mem::take(&mut self.text));
            self.tokens_mut().push(text);
        }
    }

    fn tokens_mut(&mut self) -> &mut Vec<Token> {
        match &mut self.group {
            Some(group) => &mut group.tokens,
            None => &mut self.top,
        }
    }

    fn open_group(&mut self, pos: usize) -> Result<(), TemplateError> {
        if self.group.is_some() {
            return Err(self.error(pos, "groups cannot be nested"));
        }
        self.flush_text();
        self.group = Some(OpenGroup {
            start: pos,
            tokens: Vec::new(),
        });
        Ok(())
    }

    fn close_group(&mut self, pos: usize) -> Result<(), TemplateError> {
        self.flush_text();
        let Some(group) = self.group.take() else {
            return Err(self.error(
                pos,
                "unbalanced `}`: no group is open (escape a literal brace as `\\}`)",
            ));
        };
        if !group.tokens.iter().any(|t| matches!(t, Token::Slot(_))) {
            return Err(self.error(group.start, "a group needs a parameter or wildcard"));
        }
        self.top.push(Token::Group(group.tokens));
        Ok(())
    }

    /// Parses `:name`, `:name?` or `*name` whose sigil is at `start`; returns the position after it.
    fn placeholder(&mut self, start: usize, kind: PlaceholderKind) -> Result<usize, TemplateError> {
        let source = self.source;
        let name_start = start + 1;
        let name_len = name_length(&source[name_start..]);
        if name_len == 0 {
            let reason = match kind {
                PlaceholderKind::Param => "`:` must be followed by a parameter name (escape a literal colon as `\\:`)",
                PlaceholderKind::Wildcard => {
                    "`*` must be followed by a wildcard name (escape a literal asterisk as `\\*`)"
                }
            };
            return Err(self.error(start, reason));
        }
        let name = &source[name_start..name_start + name_len];
        if !self.names.insert(name) {
            let reason = match kind {
                PlaceholderKind::Param => format!("parameter `{name}` is used twice"),
                PlaceholderKind::Wildcard => format!("wildcard `{name}` is used twice"),
            };
            return Err(self.error(start, reason));
        }
        let mut end = name_start + name_len;
        let optional = source[end..].starts_with('?');
        if optional {
            if kind == PlaceholderKind::Wildcard {
                return Err(self.error(end, format!("`*{name}?` is not allowed: write `{{/*{name}}}`")));
            }
            if self.group.is_some() {
                return Err(self.error(
                    end,
                    "`?` is not allowed inside a group (the group already makes its content optional)",
                ));
            }
            end += 1;
        }
        let slash_before = optional && self.text_ends_with_slash;
        if slash_before {
            self.text.pop();
        }
        self.flush_text();
        let index = self.placeholders.len();
        self.placeholders.push(Placeholder {
            name: name.to_owned(),
            kind,
            optional,
            group: self.group.as_ref().map(|g| g.start),
            offset: start,
            slash_before,
        });
        self.tokens_mut().push(Token::Slot(index));
        Ok(end)
    }
}

/// Length in bytes of the longest name `[A-Za-z_][A-Za-z0-9_]*` at the start of `s` (0 if none).
fn name_length(s: &str) -> usize {
    let bytes = s.as_bytes();
    match bytes.first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {
            1 + bytes[1..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count()
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(template: &Template) -> String {
        fn write(tokens: &[Token], template: &Template, out: &mut String) {
            for token in tokens {
                match token {
                    Token::Text(text) => out.push_str(&format!("T({text})")),
                    Token::Slot(i) => {
                        let p = &template.placeholders[*i];
                        let sigil = if p.is_wildcard() { '*' } else { ':' };
                        let slash = if p.slash_before { "/" } else { "" };
                        let mark = if p.optional { "?" } else { "" };
                        out.push_str(&format!("S({slash}{sigil}{}{mark})", p.name));
                    }
                    Token::Group(tokens) => {
                        out.push('{');
                        write(tokens, template, out);
                        out.push('}');
                    }
                }
            }
        }
        let mut out = String::new();
        write(&template.tokens, template, &mut out);
        out
    }

    #[test]
    fn r_path_1_tokens() {
        let cases = [
            ("", ""),
            ("/users/:id", "T(/users/)S(:id)"),
            ("/:a-:b", "T(/)S(:a)T(-)S(:b)"),
            ("/users/:id?", "T(/users)S(/:id?)"),
            (r"/users\/:id?", "T(/users/)S(:id?)"),
            (r"/a\\/:id?", r"T(/a\)S(/:id?)"),
            ("q=:q?", "T(q=)S(:q?)"),
            ("/:group/posts{/:id}", "T(/)S(:group)T(/posts){T(/)S(:id)}"),
            ("/repos/:owner/*path", "T(/repos/)S(:owner)T(/)S(*path)"),
            (r"http\://x/:id", "T(http://x/)S(:id)"),
            ("/a%20b/:c_1x", "T(/a%20b/)S(:c_1x)"),
            ("/ü/:id", "T(/ü/)S(:id)"),
            ("/ü/:ü", "err"),
        ];
        for (source, expected) in cases {
            match parse(source) {
                Ok(template) => assert_eq!(shape(&template), expected, "{source}"),
                Err(err) => assert!(expected == "err", "{source}: {err}"),
            }
        }
    }

    #[test]
    fn name_length_is_the_longest_match() {
        assert_eq!(name_length("id/x"), 2);
        assert_eq!(name_length("_a9-b"), 3);
        assert_eq!(name_length("9a"), 0);
        assert_eq!(name_length(""), 0);
        assert_eq!(name_length("ü"), 0);
    }
}
