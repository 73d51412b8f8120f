// Command hosted is a program that opens a bubble under bubble.Host.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

func main() {
	bubble.Host(func() int {
		if len(os.Args) == 3 && os.Args[1] == "-exit" {
			code, _ := strconv.Atoi(os.Args[2])
			return code
		}
		var slept time.Duration
		if err := bubble.Run(bubble.Options{}, func() error {
			t0 := time.Now()
			time.Sleep(10 * time.Hour)
			slept = time.Since(t0)
			return nil
		}); err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Printf("%s %s: slept %v in a bubble\n", os.Args[1], os.Args[2], slept)
		return 0
	})
}
