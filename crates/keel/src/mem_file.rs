//! `--mem NAME=FILE` (`keel run`, `keel sim`): the option's shape, checked
//! when the command line is parsed (a missing `=` is a usage error, exit
//! 2), and the one reader of its files: literals separated by blanks,
//! commas or newlines, `;` starting a comment. Each subcommand parses the
//! words with its own IR's literal syntax.
//!
//! Refused, with the file and line: an empty value between two commas (or
//! a comma before a line's first value), a file that is not UTF-8 or
//! larger than the most Keel reads. Refused by the subcommands: the same
//! object given twice ([`check_distinct`]).

/// One `--mem NAME=FILE`.
#[derive(Clone, Debug)]
pub(crate) struct MemSpec {
    /// The object's name, without its sigil.
    pub(crate) name: String,
    /// The file of literals.
    pub(crate) path: String,
}

/// clap's parser for `--mem`.
pub(crate) fn mem_spec(text: &str) -> Result<MemSpec, String> {
    match text.split_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok(MemSpec { name: crate::out::name_arg(name), path: path.to_string() })
        }
        _ => Err(format!("`{text}` is not NAME=FILE")),
    }
}

/// An error naming the first object that `specs` give twice.
pub(crate) fn check_distinct(specs: &[MemSpec]) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for s in specs {
        if !seen.insert(s.name.as_str()) {
            return Err(format!("--mem gives {} twice", crate::out::global(&s.name)));
        }
    }
    Ok(())
}

/// A value read from a `--mem` file: its text and 1-based line.
pub(crate) struct Word {
    /// The literal's text.
    pub(crate) text: String,
    /// Its line in the file.
    pub(crate) line: usize,
}

/// The values in `path`, in order (see the module doc).
pub(crate) fn read_words(path: &str) -> Result<Vec<Word>, String> {
    let text = crate::input::read_text(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    words(&text).map_err(|line| format!("{path}:{line}: an empty value between commas"))
}

/// The words of `text`, or the line of an empty value between commas.
fn words(text: &str) -> Result<Vec<Word>, usize> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.split(';').next().unwrap_or("");
        // A comma with no value since the line's start or the last comma.
        let mut value_since_comma = false;
        let mut current = String::new();
        for c in line.chars().chain(std::iter::once(' ')) {
            if c.is_whitespace() || c == ',' {
                if !current.is_empty() {
                    out.push(Word { text: std::mem::take(&mut current), line: k + 1 });
                    value_since_comma = true;
                }
                if c == ',' {
                    if !value_since_comma {
                        return Err(k + 1);
                    }
                    value_since_comma = false;
                }
            } else {
                current.push(c);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Result<Vec<String>, usize> {
        words(s).map(|w| w.into_iter().map(|w| w.text).collect())
    }

    #[test]
    fn separators_and_comments() {
        assert_eq!(
            texts("1, 2 3\n4,5, ; six\n\n-7"),
            Ok(vec!["1", "2", "3", "4", "5", "-7"].into_iter().map(String::from).collect())
        );
        assert_eq!(texts(""), Ok(vec![]));
    }

    #[test]
    fn empty_values_are_refused_with_their_line() {
        assert_eq!(texts("1,,2"), Err(1));
        assert_eq!(texts("1\n, 2"), Err(2));
        assert_eq!(texts("1, ,2"), Err(1));
    }

    #[test]
    fn specs() {
        assert!(mem_spec("a=f.txt").is_ok_and(|s| s.name == "a" && s.path == "f.txt"));
        assert!(mem_spec("@a=f.txt").is_ok_and(|s| s.name == "a"));
        for bad in ["foo.txt", "=f", "a="] {
            assert!(mem_spec(bad).is_err(), "{bad}");
        }
        let two = [mem_spec("a=x").unwrap(), mem_spec("@a=y").unwrap()];
        assert_eq!(check_distinct(&two), Err("--mem gives @a twice".to_string()));
    }
}
