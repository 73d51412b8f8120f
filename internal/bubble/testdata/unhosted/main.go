// Command unhosted opens a bubble without bubble.Host, and says what Run
// answered.
package main

import (
	"errors"
	"fmt"

	"github.com/etcdsim/etcdsim/internal/bubble"
)

func main() {
	err := bubble.Run(bubble.Options{}, func() error { return nil })
	fmt.Println(errors.Is(err, bubble.ErrNoHost), err)
}
