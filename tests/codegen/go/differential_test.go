// Differential harness: validates every case of a JSON-lines file with the generated Go
// bindings and writes what they report, for tests/codegen/test_go.py to compare with the
// Python reference validator. Runs only when MEMORYWIRE_CASES names the input file.

package memorywire

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

func TestDifferential(t *testing.T) {
	input := os.Getenv("MEMORYWIRE_CASES")
	if input == "" {
		t.Skip("MEMORYWIRE_CASES is not set")
	}
	in, err := os.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(os.Getenv("MEMORYWIRE_RESULTS"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	scanner := bufio.NewScanner(in)
	scanner.Buffer(nil, 1<<26)
	for scanner.Scan() {
		var c struct {
			Message  string          `json:"message"`
			Instance json.RawMessage `json:"instance"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		found := [][2]string{}
		for _, e := range ValidateJSON(c.Message, c.Instance) {
			found = append(found, [2]string{e.Path, e.Rule})
		}
		line, err := json.Marshal(found)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}
