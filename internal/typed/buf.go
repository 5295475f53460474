package typed

import "sync"

// answerBufs holds the buffers that problem documents and typed answers'
// JSON are written in, so that writing an answer allocates no buffer: a
// Writer keeps no slice it was given (io.Writer's rule), so a buffer
// serves the next answer once written.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxAnswerBuf is the largest buffer, in bytes, that answerBufs keeps: one
// grown by a larger answer is left to the collector.
const maxAnswerBuf = 64 << 10

// AnswerBuf returns a buffer to write an answer in, empty; give it back
// with PutAnswerBuf once the answer is written.
func AnswerBuf() *[]byte { return answerBufs.Get().(*[]byte) }

// PutAnswerBuf puts b, the buffer bp held grown as it was written to,
// back for the next answer.
func PutAnswerBuf(bp *[]byte, b []byte) {
	if cap(b) <= maxAnswerBuf {
		*bp = b[:0]
		answerBufs.Put(bp)
	}
}
