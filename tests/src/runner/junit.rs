//! JUnit XML output.
//!
//! One `<testsuites>` with one `<testsuite>`; one `<testcase>` per result,
//! with `classname` the name up to its last dot and `name` the full dotted
//! name (so the name alone finds the test). Regressions (`Fail`, `Crash`,
//! `Timeout`, `Missing`, `UnexpectedImprovement(..)`) get a `<failure>` whose
//! `type` is the status, whose `message` is the first line of the test's
//! message and whose text is the whole message (validation messages
//! included) and the child's output. Skips get `<skipped>`. `Flake` and
//! `ExpectedFail` count as passes, with their message in `<system-out>`.
//!
//! The writer is hand-rolled and small: text is escaped for XML 1.0, and
//! characters XML 1.0 cannot carry at all (most C0 controls, U+FFFE, U+FFFF)
//! are replaced by U+FFFD.

use std::io::{self, Write};

use super::results::TestResult;
use super::status::Status;

/// Escapes text for XML element content or a double-quoted attribute.
pub fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\t' | '\n' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn first_line(s: &str, max_chars: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > max_chars {
        let mut t: String = line.chars().take(max_chars).collect();
        t.push('…');
        t
    } else {
        line.to_string()
    }
}

fn classname(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(c, _)| c)
}

/// Writes the JUnit document.
pub fn write_junit(
    w: &mut impl Write,
    suite: &str,
    results: &[TestResult],
    total_time: f64,
) -> io::Result<()> {
    let mut sorted: Vec<_> = results.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let failures = sorted.iter().filter(|r| r.status.is_regression()).count();
    let skipped = sorted.iter().filter(|r| r.status == Status::Skip).count();
    let suite = escape(suite, true);
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        w,
        r#"<testsuites name="{suite}" tests="{}" failures="{failures}" errors="0" skipped="{skipped}" time="{total_time:.3}">"#,
        sorted.len()
    )?;
    writeln!(
        w,
        r#"  <testsuite name="{suite}" tests="{}" failures="{failures}" errors="0" skipped="{skipped}" time="{total_time:.3}">"#,
        sorted.len()
    )?;
    for r in sorted {
        write!(
            w,
            r#"    <testcase name="{}" classname="{}" time="{:.4}""#,
            escape(&r.name, true),
            escape(classname(&r.name), true),
            r.duration
        )?;
        let mut body = String::new();
        if r.status.is_regression() {
            let mut text = format!("{}: {}", r.status, r.name);
            if !r.message.is_empty() {
                text.push_str("\n\n");
                text.push_str(&r.message);
            }
            if !r.output.is_empty() {
                text.push_str("\n\noutput:\n");
                text.push_str(&r.output);
            }
            let msg = if r.message.is_empty() {
                r.status.to_string()
            } else {
                first_line(&r.message, 200)
            };
            body = format!(
                "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                escape(&r.status.to_string(), true),
                escape(&msg, true),
                escape(&text, false)
            );
        } else if r.status == Status::Skip {
            body = format!(
                "      <skipped message=\"{}\"/>\n",
                escape(&first_line(&r.message, 200), true)
            );
        } else if !r.message.is_empty() {
            body = format!(
                "      <system-out>{}: {}</system-out>\n",
                r.status,
                escape(&r.message, false)
            );
        }
        if body.is_empty() {
            writeln!(w, "/>")?;
        } else {
            writeln!(w, ">")?;
            w.write_all(body.as_bytes())?;
            writeln!(w, "    </testcase>")?;
        }
    }
    writeln!(w, "  </testsuite>")?;
    writeln!(w, "</testsuites>")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::status::RawStatus;

    #[test]
    fn escaping() {
        assert_eq!(escape("a<b>&\"c'", false), "a&lt;b&gt;&amp;\"c'");
        assert_eq!(escape("a\"\n'", true), "a&quot;&#10;&apos;");
        assert_eq!(escape("x\u{1b}[0m\u{0}", false), "x\u{FFFD}[0m\u{FFFD}");
    }

    #[test]
    fn document_parses() {
        let results = vec![
            TestResult::new("pipe.a.pass", Status::Pass, 0.1),
            TestResult::new("pipe.a.fail", Status::Fail, 0.2)
                .with_message("validation: <VUID-x> \"bad\" & worse\nsecond line\u{7}"),
            TestResult::new("pipe.b.skip", Status::Skip, 0.0).with_message("no caps"),
            TestResult::new("pipe.b.flake", Status::Flake, 0.3).with_message("failed once"),
            TestResult::new(
                "pipe.c",
                Status::UnexpectedImprovement(RawStatus::Pass),
                0.0,
            ),
        ];
        let mut out = Vec::new();
        write_junit(&mut out, "pipe-cts", &results, 1.5).unwrap();
        let text = String::from_utf8(out).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let suite = doc
            .descendants()
            .find(|n| n.has_tag_name("testsuite"))
            .unwrap();
        assert_eq!(suite.attribute("tests"), Some("5"));
        assert_eq!(suite.attribute("failures"), Some("2"));
        assert_eq!(suite.attribute("skipped"), Some("1"));
        let fail = doc
            .descendants()
            .find(|n| n.attribute("name") == Some("pipe.a.fail"))
            .unwrap();
        assert_eq!(fail.attribute("classname"), Some("pipe.a"));
        let f = fail.children().find(|n| n.has_tag_name("failure")).unwrap();
        assert_eq!(f.attribute("type"), Some("Fail"));
        assert_eq!(
            f.attribute("message"),
            Some("validation: <VUID-x> \"bad\" & worse")
        );
        assert!(f.text().unwrap().contains("second line\u{FFFD}"));
        let imp = doc
            .descendants()
            .find(|n| n.attribute("name") == Some("pipe.c"))
            .unwrap();
        let f = imp.children().find(|n| n.has_tag_name("failure")).unwrap();
        assert_eq!(f.attribute("type"), Some("UnexpectedImprovement(Pass)"));
    }
}
