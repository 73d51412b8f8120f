package checker

// opLog holds a recorder's operations in blocks of fixed size: appending
// never moves what was recorded, so an operation costs the same to record
// at the millionth as at the first, and a Pending can point into the log.
type opLog struct {
	blocks [][]Operation
	n      int
}

// opBlock is how many operations one block holds.
const opBlock = 1024

// add appends op and returns its index.
func (l *opLog) add(op Operation) int {
	if l.n%opBlock == 0 {
		l.blocks = append(l.blocks, make([]Operation, 0, opBlock))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, op)
	l.n++
	return l.n - 1
}

// at returns the operation at index i.
func (l *opLog) at(i int) *Operation { return &l.blocks[i/opBlock][i%opBlock] }

// len returns how many operations the log holds.
func (l *opLog) len() int { return l.n }
