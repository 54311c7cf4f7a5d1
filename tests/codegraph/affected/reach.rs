//! What the walk follows beyond direct calls, each change's exact selection: an import whose
//! path is not the package's name, a class's special methods reaching who constructs it, a class
//! held as a value, a method run through a subclass's other bases.

use codegraph::analysis::affected::Format;

use super::Repo;

#[test]
fn a_go_package_imported_under_its_name_not_its_path_reaches_its_importers_tests() {
    let repo = Repo::new(&[
        ("go.mod", "module example.com/go-calc\n\ngo 1.21\n"),
        (
            "calc.go",
            "package calc\n\nfunc Comma(v int) string { return string(rune(v)) }\n\nfunc Other() int { return 1 }\n",
        ),
        (
            "words/words.go",
            "package words\n\nimport (\n\tcalc \"example.com/go-calc\"\n)\n\nfunc Plural(n int) string { return calc.Comma(n) + \"s\" }\n",
        ),
        (
            "words/words_test.go",
            "package words\n\nimport \"testing\"\n\nfunc TestPlural(t *testing.T) {\n\tif Plural(1) == \"\" {\n\t\tt.Fatal()\n\t}\n}\n\nfunc TestNothing(t *testing.T) {}\n",
        ),
        (
            "units/units.go",
            "package units\n\nimport \"example.com/go-calc\"\n\nfunc Count(n int) string { return calc.Comma(n) }\n",
        ),
        (
            "units/units_test.go",
            "package units\n\nimport \"testing\"\n\nfunc TestCount(t *testing.T) {\n\tif Count(1) == \"\" {\n\t\tt.Fatal()\n\t}\n}\n",
        ),
    ]);
    repo.replace("calc.go", "string(rune(v))", "string(rune(v + 1))");
    assert_eq!(
        repo.affected(Format::Go).1,
        ["./units ^(TestCount)$", "./words ^(TestPlural)$"]
    );
}
