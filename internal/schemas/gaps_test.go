package schemas

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/report"
)

// Every report's incomplete[] has the one shape, at every level of the report: a list of
// report.Gap. The only other field under that key is a summary's count of them.
func TestIncompleteIsOneShape(t *testing.T) {
	gaps := reflect.TypeFor[[]report.Gap]()
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			found := 0
			walk(k.Type, map[reflect.Type]bool{}, func(owner reflect.Type, f reflect.StructField) {
				if jsonName(f) != "incomplete" {
					return
				}
				if strings.HasSuffix(owner.Name(), "Summary") && f.Type.Kind() == reflect.Int {
					return
				}
				found++
				if f.Type != gaps {
					t.Errorf("%s.%s (json incomplete) is %s, not []report.Gap", owner, f.Name, f.Type)
				}
			})
			if found == 0 && k.Name != "ChartsPullResult" {
				t.Errorf("%s has no incomplete[]", k.Name)
			}
		})
	}
}

// Nothing a report says beside its findings is a bare line: every warnings[] and notes[] is a
// list of report.Note, every unchecked[] and notCovered[] a list of report.Gap, at every level
// of every report; and no list of strings hides under another key that says it holds gaps,
// warnings, notes, or what was not covered or decoded.
func TestNotesAndWarningsAreTyped(t *testing.T) {
	want := map[string]reflect.Type{
		"incomplete": reflect.TypeFor[[]report.Gap](),
		"unchecked":  reflect.TypeFor[[]report.Gap](),
		"undecoded":  reflect.TypeFor[[]report.Gap](),
		"unrendered": reflect.TypeFor[[]report.Gap](),
		"notCovered": reflect.TypeFor[[]report.Gap](),
		"warnings":   reflect.TypeFor[[]report.Note](),
		"notes":      reflect.TypeFor[[]report.Note](),
	}
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			walk(k.Type, map[reflect.Type]bool{}, func(owner reflect.Type, f reflect.StructField) {
				name := jsonName(f)
				if k := f.Type.Kind(); k == reflect.Bool || (k == reflect.Int && strings.HasSuffix(owner.Name(), "Summary")) {
					return // a flag, or a summary's count of them
				}
				if typ, ok := want[name]; ok && f.Type != typ {
					t.Errorf("%s.%s (json %s) is %s, not %s", owner, f.Name, name, f.Type, typ)
				}
				lower := strings.ToLower(name)
				if _, ok := want[name]; !ok && f.Type == reflect.TypeFor[[]string]() &&
					slices.ContainsFunc([]string{"warning", "note", "gap", "unchecked", "covered", "decoded"}, func(w string) bool { return strings.Contains(lower, w) }) {
					t.Errorf("%s.%s (json %s) is a list of lines; type it as report.Note or report.Gap", owner, f.Name, name)
				}
			})
		})
	}
}

// walk calls visit for every field of every struct reachable from t, embedded ones included,
// each struct type once.
func walk(t reflect.Type, seen map[reflect.Type]bool, visit func(owner reflect.Type, f reflect.StructField)) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		visit(t, f)
		walk(f.Type, seen, visit)
	}
}

// jsonName is the key a field marshals to ("" for an embedded struct without a tag).
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" && !f.Anonymous {
		return f.Name
	}
	return name
}
