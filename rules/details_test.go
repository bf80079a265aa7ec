package rules

import (
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/jsonw/jsonwtest"
)

// TestDetailsWriteAsEncodingJSON: the details of ET301 and ET302 write
// themselves as encoding/json writes them: null for a nil definition list,
// members omitted when empty, strings escaped.
func TestDetailsWriteAsEncodingJSON(t *testing.T) {
	def := DefDetail{Object: "/lib/libc.so.6", Symbol: "foo@@V1", Type: "FUNC", Binding: "GLOBAL", Visibility: "DEFAULT"}
	full := ConflictDetails{Linkage: "strong", Use: "interposed", Process: "python3", Wheel: []DefDetail{def, {}},
		Peer: []DefDetail{def}, Bindings: []BindDetail{{Side: "wheel", From: "a!b.o", To: "t", Own: "o"}, {Side: "torch", From: `"q"`}}}
	for _, d := range []ConflictDetails{{}, {Wheel: []DefDetail{}, Peer: []DefDetail{}, Bindings: []BindDetail{}}, full,
		{Linkage: "vague", Use: "unused", Wheel: []DefDetail{{Symbol: "std::vector<int, std::allocator<int> >::~vector() & \u2028"}}}} {
		jsonwtest.SameAsEncodingJSON(t, d)
		jsonwtest.SameAsEncodingJSON(t, &d)
	}
	for _, b := range []BundleDetails{{}, {Library: "/lib/x.so", Symbols: []BundleMember{}},
		{Library: "l", Component: "cpuinfo", Symbols: []BundleMember{{Symbol: "s", Severity: finding.Warning, Details: full}, {}}}} {
		jsonwtest.SameAsEncodingJSON(t, b)
	}
}
