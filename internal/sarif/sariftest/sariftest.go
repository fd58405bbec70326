// Package sariftest validates SARIF logs in tests against the published SARIF 2.1.0 JSON
// schema. Only tests import it.
//
// sarif-2.1.0-rtm.5.json is the schema of SARIF 2.1.0 (the schemastore copy, id
// https://raw.githubusercontent.com/schemastore/schemastore/master/src/schemas/json/sarif-2.1.0-rtm.5.json),
// taken unchanged from the npm package @microsoft/jest-sarif 1.0.0-beta.0
// (lib/schemas/sarif-2.1.0-rtm.5.json, MIT; sha256
// 2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8).
package sariftest

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-2.1.0-rtm.5.json
var schemaJSON []byte

const schemaURL = "https://json.schemastore.org/sarif-2.1.0.json"

// Validate fails t unless log is a SARIF 2.1.0 log the schema accepts, formats (uri,
// uri-reference) asserted, that GitHub code scanning ingests (Ingestible).
func Validate(t testing.TB, log []byte) {
	t.Helper()
	if err := Check(log); err != nil {
		t.Fatalf("SARIF log does not validate against the SARIF 2.1.0 schema: %v\n%s", err, log)
	}
	if bad := Ingestible(log); len(bad) > 0 {
		t.Fatalf("SARIF log breaks the Multitool's Sarif and Gh rules:\n%s", strings.Join(bad, "\n"))
	}
}

// Check returns why log is not a SARIF 2.1.0 log the schema accepts, nil when it is.
func Check(log []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return err
	}
	if !json.Valid(log) {
		return errors.New("not JSON")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
