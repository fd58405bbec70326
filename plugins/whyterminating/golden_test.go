package whyterminating_test

import (
	"flag"

	"github.com/kubeforensics/suite/internal/testsupport/golden"
)

// goldens are the files under testdata/; the normalisers make outputs of different runs
// comparable: ports, times, ages and counts that depend on how many types the test cluster
// serves at that moment.
var goldens = golden.Register(flag.CommandLine, "testdata",
	golden.Regexp(`https://127\.0\.0\.1:\d+`, "https://127.0.0.1:PORT"),
	golden.Regexp(`--kubeconfig=\S*/kubeconfig\b`, "--kubeconfig=KUBECONFIG"),
	golden.Regexp(`"deletionTimestamp": "[^"]*"`, `"deletionTimestamp": "TIME"`),
	golden.Regexp(`"(lastTransitionTime|lastSeen)": "[^"]*"`, `"$1": "TIME"`),
	golden.Regexp(`deletion requested [0-9-]+ [0-9:]+Z`, "deletion requested TIME"),
	golden.Regexp(`(?i)(terminating ?for"?:? "?)\d+[smhd](\d+m)?`, "${1}AGE"),
	golden.Regexp(`"listRequests": \d+`, `"listRequests": N`),
	golden.Regexp(`\bage \d+[smhd]\b`, "age AGE"),
	golden.Regexp(`headlamp-[a-z0-9]{8,10}-[a-z0-9]{5}\b`, "headlamp-HASH-POD"),
	golden.Regexp(`headlamp-[a-z0-9]{8,10}\b`, "headlamp-HASH"),
	// The report's envelope: when it was written (docs/report.md).
	golden.Regexp(`"timestamp": "[^"]*"`, `"timestamp": "2026-01-01T00:00:00Z"`),
	golden.Regexp(`(?m)^(\s*)timestamp: .*$`, `${1}timestamp: "2026-01-01T00:00:00Z"`),
)
