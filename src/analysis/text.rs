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
        && stem.len() > 4
    {
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
    }

    #[test]
    fn questions_lose_their_stop_words() {
        assert_eq!(query_terms("how does authentication work"), ["authentic"]);
        assert_eq!(query_terms("use"), ["use"]);
    }
}
