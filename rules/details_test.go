package rules

import (
	"bytes"
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

// TestLaterDetailsAsBuilt: details built when written write as the value
// built, to jsonw and to encoding/json alike (HTML left unescaped for the
// report's encoder to decide), and are built only when written.
func TestLaterDetailsAsBuilt(t *testing.T) {
	built := 0
	d := later[BundleDetails](func() BundleDetails {
		built++
		return BundleDetails{Library: "/lib/<x>&.so", Symbols: []BundleMember{{Symbol: "a<b>", Details: ConflictDetails{Use: "unused"}}}}
	})
	if built != 0 {
		t.Fatal("built before written")
	}
	jsonwtest.SameAsEncodingJSON(t, d)
	want := jsonwtest.EncodingJSON(t, d())
	if got := jsonwtest.EncodingJSON(t, d); !bytes.Equal(got, want) {
		t.Errorf("encoding/json writes\n%s\nthe value built:\n%s", got, want)
	}
}
