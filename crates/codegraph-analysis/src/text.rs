//! Words from code and from questions: identifier splitting (camelCase, snake_case, kebab-case,
//! dotted and path names), lowercasing, a light stemmer and a small stop list.
//!
//! The stemmer is deliberately crude but consistent: it only has to map the words of one
//! family (`authenticate`, `authentication`, `authenticated`, `authenticator`) to the same key,
//! for identifiers and for questions alike.

/// Splits text into lowercase sub-words: `AuthService.hash_password` → `auth`, `service`,
/// `hash`, `password`; `HTTPServer` → `http`, `server`; `parse-url2` → `parse`, `url2`.
pub fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for chunk in text.split(|character: char| !character.is_alphanumeric()) {
        if chunk.is_empty() {
            continue;
        }
        let characters: Vec<char> = chunk.chars().collect();
        let mut start = 0;
        for index in 1..characters.len() {
            let previous = characters[index - 1];
            let current = characters[index];
            let next = characters.get(index + 1).copied();
            // `aB` starts a word at B; `ABc` starts a word at B (the end of an acronym).
            let boundary = (previous.is_lowercase() && current.is_uppercase())
                || (previous.is_uppercase()
                    && current.is_uppercase()
                    && next.is_some_and(char::is_lowercase));
            if boundary {
                words.push(characters[start..index].iter().collect::<String>());
                start = index;
            }
        }
        words.push(characters[start..].iter().collect::<String>());
    }
    words
        .into_iter()
        .map(|word| word.to_lowercase())
        .filter(|word| !word.is_empty())
        .collect()
}

fn has_vowel(text: &str) -> bool {
    text.chars().any(|character| "aeiouy".contains(character))
}

/// Suffixes stripped once, longest first. The remaining stem must keep a vowel and at least
/// three letters, so `string` stays `string` and `user` stays `user`.
const SUFFIXES: [&str; 25] = [
    "ations", "ation", "ators", "ator", "ating", "ated", "ates", "ate", "itions", "ition", "ments",
    "ment", "ings", "ing", "ions", "ion", "izer", "ize", "ers", "er", "ed", "ly", "able", "ible",
    "e",
];

/// A light stemmer: plural, then one derivational or inflectional suffix, then a doubled final
/// consonant (`formatt` → `format`, `runn` → `run`).
pub fn stem(word: &str) -> String {
    let word = word.to_lowercase();
    if word.len() <= 3 || !word.is_ascii() {
        return word;
    }
    let mut stem: &str = &word;
    let plural;
    if let Some(base) = stem.strip_suffix("ies") {
        plural = format!("{base}y");
        stem = &plural;
    } else if stem.ends_with('s')
        && !stem.ends_with("ss")
        && !stem.ends_with("us")
        && !stem.ends_with("is")
    {
        // Four letters are enough for a plural: `maps`, `keys`, `args`, `tags`.
        stem = &stem[..stem.len() - 1];
    }
    for suffix in SUFFIXES {
        if let Some(base) = stem.strip_suffix(suffix)
            && base.len() >= 3
            && has_vowel(base)
        {
            stem = base;
            break;
        }
    }
    let bytes = stem.as_bytes();
    if bytes.len() >= 4 {
        let last = bytes[bytes.len() - 1];
        if last == bytes[bytes.len() - 2] && !b"aeiouylsz".contains(&last) {
            stem = &stem[..stem.len() - 1];
        }
    }
    stem.to_string()
}

/// Words of a question that say nothing about code.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "by", "from", "at", "is",
    "are", "was", "be", "been", "does", "do", "did", "how", "what", "where", "which", "who", "why",
    "when", "this", "that", "these", "those", "it", "its", "there", "here", "work", "works",
    "working", "handled", "happen", "happens", "done", "code", "codebase", "project", "me", "my",
    "we", "our", "you", "i", "can", "could", "should", "would", "will", "about", "into", "any",
    "all", "some", "used", "use", "uses", "using", "find", "show", "tell", "explain", "please",
];

pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// The search terms of a piece of code text: sub-words, stemmed.
pub fn code_terms(text: &str) -> Vec<String> {
    split_words(text).iter().map(|word| stem(word)).collect()
}

/// The search terms of a query: sub-words without stop words, stemmed, deduplicated in order.
/// A query made only of stop words keeps them (someone searching for `use` means it).
pub fn query_terms(text: &str) -> Vec<String> {
    let words = split_words(text);
    let kept: Vec<&String> = words.iter().filter(|word| !is_stop_word(word)).collect();
    let chosen: Vec<&String> = if kept.is_empty() {
        words.iter().collect()
    } else {
        kept
    };
    let mut terms: Vec<String> = Vec::new();
    for word in chosen {
        let term = stem(word);
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    terms
}

/// A word of a question, as written: lowercase, with its identifier parts when it has several
/// (`glTF` is `gltf` with the parts `gl`, `tf`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawWord {
    pub whole: String,
    pub parts: Vec<String>,
}

/// Whether a mixed-case word is written like an identifier: two or more humps (`sendEmail`,
/// `EmailMessage`), rather than a name with odd capitals (`glTF`, `WebGL`, `OAuth`, `iOS`).
fn is_identifier_shaped(word: &str) -> bool {
    let characters: Vec<char> = word.chars().collect();
    let mut humps = usize::from(characters.first().is_some_and(|c| c.is_lowercase()));
    for pair in characters.windows(2) {
        if pair[0].is_uppercase() && pair[1].is_lowercase() {
            humps += 1;
        }
    }
    humps >= 2
}

/// The words of a question in order, stop words included: a word written like an identifier
/// becomes its parts (`sendEmail` is `send`, `email`); a name with odd capitals stays whole,
/// keeping its parts (the search index decides which it knows).
pub fn raw_words(text: &str) -> Vec<RawWord> {
    let mut words = Vec::new();
    for chunk in text.split(|character: char| !character.is_alphanumeric()) {
        if chunk.is_empty() {
            continue;
        }
        let parts = split_words(chunk);
        if parts.len() > 1 && !is_identifier_shaped(chunk) {
            words.push(RawWord {
                whole: chunk.to_lowercase(),
                parts,
            });
        } else {
            words.extend(parts.into_iter().map(|part| RawWord {
                whole: part,
                parts: Vec::new(),
            }));
        }
    }
    words
}

/// The names a question writes as code (`prefetch_related`, `select!`, `sendEmail`,
/// `EmailMessage.send`, `parse()`), lowercase without separators (`prefetchrelated`): the last
/// segment of each.
pub fn named_in(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for token in text.split_whitespace() {
        let token = token.trim_end_matches(['?', ',', ';', ':', '.', '"', '\'', '`', ')']);
        let token = token.trim_start_matches(['"', '\'', '`', '(']);
        let called = token.ends_with('!') || token.ends_with('(');
        let token = token.trim_end_matches(['!', '(']);
        if token.is_empty() {
            continue;
        }
        let qualified = token.contains("::")
            || token
                .split('.')
                .filter(|segment| !segment.is_empty())
                .count()
                > 1;
        let last = token
            .rsplit(['.', ':'])
            .find(|segment| !segment.is_empty())
            .unwrap_or(token);
        let code_like = called
            || qualified
            || token.contains('_')
            || (last.chars().any(char::is_uppercase) && is_identifier_shaped(last));
        if !code_like {
            continue;
        }
        let plain: String = last
            .chars()
            .filter(|character| character.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        if !plain.is_empty() && !names.contains(&plain) {
            names.push(plain);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_lowercase_words() {
        assert_eq!(
            split_words("AuthService.hash_password"),
            ["auth", "service", "hash", "password"]
        );
        assert_eq!(split_words("HTTPServer"), ["http", "server"]);
        assert_eq!(
            split_words("parse-url2 getX"),
            ["parse", "url2", "get", "x"]
        );
    }

    #[test]
    fn word_families_share_a_stem() {
        for word in [
            "authenticate",
            "authentication",
            "authenticated",
            "authenticator",
            "authenticating",
            "authenticates",
        ] {
            assert_eq!(stem(word), "authentic", "{word}");
        }
        for word in ["handler", "handle", "handling", "handled", "handlers"] {
            assert_eq!(stem(word), "handl", "{word}");
        }
        assert_eq!(stem("tokens"), "token");
        assert_eq!(stem("formatter"), "format");
        assert_eq!(stem("string"), "string");
        assert_eq!(stem("queries"), "query");
        // A four-letter plural is a plural (`maps` for `WebGLShadowMap`); `-ss`, `-us`, `-is`
        // are not.
        assert_eq!(stem("maps"), "map");
        assert_eq!(stem("keys"), "key");
        assert_eq!(stem("less"), "less");
        assert_eq!(stem("plus"), "plus");
        assert_eq!(stem("axis"), "axis");
    }

    #[test]
    fn odd_capitals_keep_a_word_whole_and_code_is_recognised() {
        let words = raw_words("load a glTF model with sendEmail");
        let wholes: Vec<&str> = words.iter().map(|word| word.whole.as_str()).collect();
        assert_eq!(
            wholes,
            ["load", "a", "gltf", "model", "with", "send", "email"]
        );
        assert_eq!(words[2].parts, ["gl", "tf"]);
        assert_eq!(
            named_in(
                "How does select! wait, and prefetch_related(), EmailMessage.send or sendEmail?"
            ),
            ["select", "prefetchrelated", "send", "sendemail"]
        );
        assert!(named_in("How is a user logged in? WebGL and glTF").is_empty());
    }

    #[test]
    fn questions_lose_their_stop_words() {
        assert_eq!(query_terms("how does authentication work"), ["authentic"]);
        assert_eq!(query_terms("use"), ["use"]);
    }
}
