//! Which code a search or an analysis looks at, by what it is for (`model::FileClass`):
//! production code first by default, or only some classes.
//!
//! "Production first" keeps every class but ranks the others below production code of similar
//! relevance, each by a weight; a question that names a class ("the tests of the session
//! store", "an example of a loader") lifts that class to production's weight, because then it
//! is what is asked for. The weights were measured on the question benchmark
//! (`benches/questions.rs`), not guessed.

use codegraph_model::FileClass;

/// A filter over file classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileFilter {
    /// One bit per class, in `FileClass::ALL` order.
    admitted: u8,
    production_first: bool,
    /// Under production first, each class's weight in percent, in `FileClass::ALL` order.
    weights: [u8; 6],
}

impl Default for FileFilter {
    fn default() -> FileFilter {
        FileFilter::PRODUCTION_FIRST
    }
}

fn bit(class: FileClass) -> u8 {
    1 << position(class)
}

/// The weight of each class under "production first", in percent, in `FileClass::ALL` order:
/// production, test, fixture, example, generated, vendored.
const PRODUCTION_FIRST_WEIGHTS: [u8; 6] = [100, 45, 35, 60, 30, 30];

fn position(class: FileClass) -> usize {
    FileClass::ALL
        .iter()
        .position(|candidate| *candidate == class)
        .unwrap_or(0)
}

/// Query words that ask for a class: with one of them, that class ranks like production code.
const CLASS_WORDS: &[(&str, FileClass)] = &[
    ("test", FileClass::Test),
    ("tests", FileClass::Test),
    ("testing", FileClass::Test),
    ("spec", FileClass::Test),
    ("specs", FileClass::Test),
    ("benchmark", FileClass::Test),
    ("benchmarks", FileClass::Test),
    ("bench", FileClass::Test),
    ("fixture", FileClass::Fixture),
    ("fixtures", FileClass::Fixture),
    ("testdata", FileClass::Fixture),
    ("example", FileClass::Example),
    ("examples", FileClass::Example),
    ("demo", FileClass::Example),
    ("sample", FileClass::Example),
    ("generated", FileClass::Generated),
    ("vendor", FileClass::Vendored),
    ("vendored", FileClass::Vendored),
];

impl FileFilter {
    /// Every class, production code ranked first (the default).
    pub const PRODUCTION_FIRST: FileFilter = FileFilter {
        admitted: 0b11_1111,
        production_first: true,
        weights: PRODUCTION_FIRST_WEIGHTS,
    };

    /// Every class, ranked by relevance alone.
    pub const ALL: FileFilter = FileFilter {
        admitted: 0b11_1111,
        production_first: false,
        weights: PRODUCTION_FIRST_WEIGHTS,
    };

    /// Only these classes, ranked by relevance alone.
    pub fn only(classes: &[FileClass]) -> FileFilter {
        FileFilter {
            admitted: classes.iter().fold(0, |bits, class| bits | bit(*class)),
            production_first: false,
            weights: PRODUCTION_FIRST_WEIGHTS,
        }
    }

    /// This filter with another weight (0..=1) for one class under production first (the
    /// question benchmark measures the weights with it).
    pub fn with_weight(self, class: FileClass, weight: f64) -> FileFilter {
        let mut weights = self.weights;
        weights[position(class)] = (weight.clamp(0.0, 1.0) * 100.0).round() as u8;
        FileFilter { weights, ..self }
    }

    /// `production_first` (or empty), `all`, or a comma-separated list of classes
    /// (`production`, `test`, `fixture`, `example`, `generated`, `vendored`; plurals accepted).
    pub fn parse(text: &str) -> Result<FileFilter, String> {
        let text = text.trim();
        match text.to_ascii_lowercase().replace('-', "_").as_str() {
            "" | "default" | "production_first" => return Ok(FileFilter::PRODUCTION_FIRST),
            "all" | "any" => return Ok(FileFilter::ALL),
            _ => {}
        }
        let mut classes = Vec::new();
        for part in text
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            classes.push(FileClass::parse(part).ok_or_else(|| {
                format!(
                    "unknown file class '{part}': use production_first, all, or a list of \
                     production, test, fixture, example, generated, vendored"
                )
            })?);
        }
        if classes.is_empty() {
            return Err("no file class given".to_string());
        }
        Ok(FileFilter::only(&classes))
    }

    pub fn admits(self, class: FileClass) -> bool {
        self.admitted & bit(class) != 0
    }

    /// Whether non-production classes are ranked below production code.
    pub fn is_production_first(self) -> bool {
        self.production_first
    }

    /// Whether this filter admits every class (whatever the ranking).
    pub fn admits_everything(self) -> bool {
        self.admitted == 0b11_1111
    }

    /// What a hit in code of `class` is worth for a question that asks for the classes
    /// `asked`: 1 unless ranking production first.
    pub fn weight(self, class: FileClass, asked: ClassesAsked) -> f64 {
        if !self.production_first || asked.contains(class) {
            return 1.0;
        }
        f64::from(self.weights[position(class)]) / 100.0
    }
}

/// The classes a question names ("tests for ...", "an example of ...").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassesAsked(u8);

impl ClassesAsked {
    pub fn from_query(query: &str) -> ClassesAsked {
        let mut bits = 0;
        for word in super::text::split_words(query) {
            if let Some((_, class)) = CLASS_WORDS.iter().find(|(asked, _)| *asked == word) {
                bits |= bit(*class);
            }
        }
        ClassesAsked(bits)
    }

    pub fn contains(self, class: FileClass) -> bool {
        self.0 & bit(class) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_parse_from_words() {
        assert_eq!(FileFilter::parse("").unwrap(), FileFilter::PRODUCTION_FIRST);
        assert_eq!(FileFilter::parse("all").unwrap(), FileFilter::ALL);
        let tests = FileFilter::parse("tests, fixture").unwrap();
        assert!(tests.admits(FileClass::Test) && tests.admits(FileClass::Fixture));
        assert!(!tests.admits(FileClass::Production));
        assert!(
            FileFilter::parse("prod")
                .unwrap_err()
                .contains("unknown file class 'prod'")
        );
    }

    #[test]
    fn production_first_ranks_tests_lower_unless_the_question_asks_for_them() {
        let filter = FileFilter::PRODUCTION_FIRST;
        let plain = ClassesAsked::from_query("how are sessions stored");
        assert_eq!(filter.weight(FileClass::Production, plain), 1.0);
        assert!(filter.weight(FileClass::Test, plain) < 1.0);
        let asking = ClassesAsked::from_query("the tests of the session store");
        assert_eq!(filter.weight(FileClass::Test, asking), 1.0);
        assert!(filter.weight(FileClass::Example, asking) < 1.0);
        assert_eq!(FileFilter::ALL.weight(FileClass::Test, plain), 1.0);
    }
}
