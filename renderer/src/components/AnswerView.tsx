import './AnswerView.css'

/** The server's answer to a request, as formatted JSON. */
export function AnswerView({ answer }: { answer: unknown }) {
  return (
    <figure className="answer">
      <figcaption>Answer</figcaption>
      <pre tabIndex={0}>{JSON.stringify(answer, null, 2)}</pre>
    </figure>
  )
}
