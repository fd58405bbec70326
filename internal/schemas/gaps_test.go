package schemas

import (
	"reflect"
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
