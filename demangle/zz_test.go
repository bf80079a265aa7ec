package demangle
import ("testing";"fmt";"sort")
func TestZZ(t *testing.T) {
	c := DefaultComponents()
	cnt := map[string]int{}
	ex := map[string]string{}
	for _, pat := range []string{"libstdc++.so.6", "libprotobuf.so.3[0-9]", "libglog.so.[0-9]", "libgflags.so.2*", "libfmt.so.[0-9]*", "libonnx.so.1", "libXNNPACK.so.0", "libc10.so*", "libtorch_cpu.so*", "libgomp.so.1"} {
		for _, s := range dynamicSymbols(t, "nm", findLibrary(pat)) {
			if len(s) < 2 || s[:2] != "_Z" { continue }
			w := walker{node: &c.ns}
			if !w.mangled(s[2:]) { k := s[:min(len(s),9)]; cnt[k]++; ex[k] = s }
		}
	}
	var ks []string; for k := range cnt { ks = append(ks, k) }
	sort.Slice(ks, func(i,j int) bool { return cnt[ks[i]] > cnt[ks[j]] })
	for _, k := range ks[:min(25,len(ks))] { fmt.Println(cnt[k], ex[k]) }
}
