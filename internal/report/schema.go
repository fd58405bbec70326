package report

import (
	"fmt"
	"path"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema infers the JSON Schema of a report type the way the SDK would (jsonschema-go), with
// one addition the SDK lacks: a type that contains itself (an explanation of a blocker that
// is itself Terminating) is defined once under $defs and referred to by $ref, instead of
// failing inference with a cycle.
func Schema(t reflect.Type) (*jsonschema.Schema, error) {
	recursive := recursiveTypes(t)
	refs := map[reflect.Type]*jsonschema.Schema{}
	for _, r := range recursive {
		// Type is repeated beside the $ref: inference turns a pointer's schema into
		// ["null", type], and a $ref alone would become "null" only.
		refs[r] = &jsonschema.Schema{Type: "object", Ref: "#/$defs/" + defName(r)}
	}
	// A gap's op and reason are closed sets: the schema lists them.
	refs[reflect.TypeFor[GapOp]()] = &jsonschema.Schema{Type: "string", Enum: enumOf(GapOps())}
	refs[reflect.TypeFor[GapReason]()] = &jsonschema.Schema{Type: "string", Enum: enumOf(GapReasons())}
	// So is a note's code.
	refs[reflect.TypeFor[NoteCode]()] = &jsonschema.Schema{Type: "string", Enum: enumOf(NoteCodes())}
	opts := &jsonschema.ForOptions{TypeSchemas: refs}
	top, err := jsonschema.ForType(t, opts)
	if err != nil {
		return nil, err
	}
	for _, r := range recursive {
		// The definition is inferred from an unnamed struct with r's fields: inference looks
		// a named type up in TypeSchemas before expanding it, which would give back the $ref.
		def, err := jsonschema.ForType(unnamed(r), opts)
		if err != nil {
			return nil, fmt.Errorf("defining %s: %w", r, err)
		}
		// The definition admits null so that a pointer's ["null", "object"] can hold; the
		// referring schema says whether null is allowed.
		def.Type, def.Types = "", []string{"null", "object"}
		if top.Defs == nil {
			top.Defs = map[string]*jsonschema.Schema{}
		}
		top.Defs[defName(r)] = def
	}
	return top, nil
}

// defName names a recursive type in $defs by its package and type name
// (finalizers.Explanation).
func defName(t reflect.Type) string { return path.Base(t.PkgPath()) + "." + t.Name() }

// unnamed returns a struct type with t's fields and no name.
func unnamed(t reflect.Type) reflect.Type {
	fields := make([]reflect.StructField, 0, t.NumField())
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			fields = append(fields, f)
		}
	}
	return reflect.StructOf(fields)
}

// recursiveTypes lists, in the order first found, the named struct types reachable from t that
// reach themselves.
func recursiveTypes(t reflect.Type) []reflect.Type {
	var found []reflect.Type
	marked := map[reflect.Type]bool{}
	done := map[reflect.Type]bool{}
	onPath := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if onPath[t] {
			if !marked[t] {
				marked[t] = true
				found = append(found, t)
			}
			return
		}
		if done[t] {
			return
		}
		onPath[t] = true
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() || f.Anonymous {
				walk(f.Type)
			}
		}
		delete(onPath, t)
		done[t] = true
	}
	walk(t)
	return found
}

// enumOf lists codes as a schema's enum.
func enumOf[T ~string](codes []T) []any {
	out := make([]any, len(codes))
	for i, c := range codes {
		out[i] = string(c)
	}
	return out
}
