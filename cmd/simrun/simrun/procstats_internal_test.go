package simrun

import (
	"runtime"
	"testing"
)

func TestSampleProc(t *testing.T) {
	p := sampleProc()
	if p.Goroutines < 1 || p.HeapInUse == 0 {
		t.Errorf("sampleProc() = %+v: want goroutines and heap in use", p)
	}
	if runtime.GOOS == "linux" && (p.RSS == 0 || p.FDs == 0) {
		t.Errorf("sampleProc() = %+v: want the RSS and open files on Linux", p)
	}
}
