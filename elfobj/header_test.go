package elfobj

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// lightOf runs lightFile on an image held in memory. The File lives in the
// source's header arrays: the source is closed when the test ends.
func lightOf(t *testing.T, data []byte) *elf.File {
	src := newSource(bytes.NewReader(data), int64(len(data)))
	t.Cleanup(src.close)
	src.readHead()
	return lightFile(src)
}

// headerDiff says how light differs from what elf.NewFile read of the same
// image (nf, err), or "" when every field lightFile fills is the same.
func headerDiff(light, nf *elf.File, err error) string {
	if err != nil {
		return fmt.Sprintf("lightFile accepted what elf.NewFile refuses: %v", err)
	}
	if !reflect.DeepEqual(light.FileHeader, nf.FileHeader) {
		return fmt.Sprintf("file header %+v, elf.NewFile %+v", light.FileHeader, nf.FileHeader)
	}
	if len(light.Progs) != len(nf.Progs) || len(light.Sections) != len(nf.Sections) {
		return fmt.Sprintf("%d programs and %d sections, elf.NewFile %d and %d",
			len(light.Progs), len(light.Sections), len(nf.Progs), len(nf.Sections))
	}
	for i := range light.Progs {
		if light.Progs[i].ProgHeader != nf.Progs[i].ProgHeader {
			return fmt.Sprintf("program %d: %+v, elf.NewFile %+v", i, light.Progs[i].ProgHeader, nf.Progs[i].ProgHeader)
		}
	}
	for i := range light.Sections {
		if light.Sections[i].SectionHeader != nf.Sections[i].SectionHeader {
			return fmt.Sprintf("section %d: %+v, elf.NewFile %+v", i, light.Sections[i].SectionHeader, nf.Sections[i].SectionHeader)
		}
	}
	return ""
}

// TestLightFileMatchesNewFile holds lightFile to elf.NewFile on every ELF
// fixture and the large system libraries, and checks that it reads the
// shared objects itself (the point of it) and leaves relocatable objects.
func TestLightFileMatchesNewFile(t *testing.T) {
	for _, path := range append(elfFixtures(t), systemLibFiles(t)...) {
		t.Run(strings.TrimLeft(strings.TrimPrefix(path, "../"), "/"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			nf, err := elf.NewFile(bytes.NewReader(data))
			light := lightOf(t, data)
			switch {
			case light == nil && err == nil && (nf.Type == elf.ET_DYN || nf.Type == elf.ET_EXEC):
				t.Errorf("lightFile declined a %v that elf.NewFile reads", nf.Type)
			case light != nil && nf != nil && nf.Type == elf.ET_REL:
				t.Error("lightFile read a relocatable object")
			case light != nil:
				if d := headerDiff(light, nf, err); d != "" {
					t.Error(d)
				}
			}
		})
	}
}

// FuzzLightFile: whatever lightFile accepts, elf.NewFile reads the same.
func FuzzLightFile(f *testing.F) {
	addELFSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		light := lightOf(t, data)
		if light == nil {
			return
		}
		nf, err := elf.NewFile(bytes.NewReader(data))
		if d := headerDiff(light, nf, err); d != "" {
			t.Error(d)
		}
	})
}
