import { Fragment, type ReactNode } from 'react'
import type { KindFormFieldView, KindFormView } from '../../../electron/core/shared-types'
import { formOf, type FormValues } from './kind-forms'
import './KindFields.css'

interface KindFieldsProps {
  fields: readonly KindFormFieldView[]
  /** The element ids' prefix: one form's fields never share an id with another's. */
  idPrefix: string
  values: FormValues
  onChange(name: string, value: string | boolean): void
  /** How this form lets a file be chosen. */
  renderFile?(field: KindFormFieldView): ReactNode
}

const SHORT_INPUTS: ReadonlySet<KindFormFieldView['input']> = new Set(['text', 'decimal', 'url'])

function textOf(values: FormValues, name: string): string {
  const value = values[name]
  return typeof value === 'string' ? value : ''
}

function Field({ field, idPrefix, values, onChange }: KindFieldsProps & { field: KindFormFieldView }) {
  const id = `${idPrefix}-${field.name}`
  const hintId = field.hint ? `${id}-hint` : undefined
  const required =
    field.required || (field.requiredWith !== undefined && textOf(values, field.requiredWith) !== '')
  const common = {
    id,
    required,
    value: textOf(values, field.name),
    placeholder: field.placeholder,
    spellCheck: field.spellCheck,
    'aria-describedby': hintId,
  }
  const change = (value: string) => onChange(field.name, field.trim ? value.trim() : value)
  return (
    <div className="field">
      <label htmlFor={id}>{field.label}</label>
      {field.input === 'textarea' ? (
        <textarea {...common} rows={field.rows} onChange={(event) => change(event.target.value)} />
      ) : (
        <input
          {...common}
          type={field.input === 'url' ? 'url' : undefined}
          inputMode={field.input === 'decimal' ? 'decimal' : undefined}
          onChange={(event) => change(event.target.value)}
        />
      )}
      {field.hint ? (
        <p id={hintId} className="hint">
          {field.hint}
        </p>
      ) : null}
    </div>
  )
}

/** Consecutive short inputs share a row; anything else stands alone. */
function rows(fields: readonly KindFormFieldView[]): KindFormFieldView[][] {
  const grouped: KindFormFieldView[][] = []
  for (const field of fields) {
    const last = grouped.at(-1)
    const short = SHORT_INPUTS.has(field.input)
    if (short && last && SHORT_INPUTS.has(last[0]?.input ?? 'textarea')) last.push(field)
    else grouped.push([field])
  }
  return grouped
}

/**
 * A kind's form fields, from its declaration: the file first, then its fields (short ones side by side),
 * then its options as checkboxes. The composer and the sandbox panel both render kinds with it.
 */
export function KindFields(props: KindFieldsProps) {
  const { fields, values, onChange, renderFile } = props
  const files = fields.filter((field) => field.input === 'file')
  const options = fields.filter((field) => field.input === 'checkbox')
  const others = fields.filter((field) => field.input !== 'file' && field.input !== 'checkbox')
  return (
    <>
      {files.map((field) => (
        <Fragment key={field.name}>{renderFile?.(field)}</Fragment>
      ))}
      {rows(others).map((row) =>
        row.length > 1 ? (
          <div className="field-row" key={row.map((field) => field.name).join()}>
            {row.map((field) => (
              <Field key={field.name} {...props} field={field} />
            ))}
          </div>
        ) : row[0] ? (
          <Field key={row[0].name} {...props} field={row[0]} />
        ) : null,
      )}
      {options.length ? (
        <div className="kind-options">
          {options.map((field) => (
            <label key={field.name}>
              <input
                type="checkbox"
                checked={values[field.name] === true}
                onChange={(event) => onChange(field.name, event.target.checked)}
              />
              {field.label}
            </label>
          ))}
        </div>
      ) : null}
    </>
  )
}

/**
 * The kinds a form offers, the chosen kind's fields and what any kind may add (a reply, mentions): the
 * composer and the sandbox panel each give their kinds' forms and how they let a file be chosen.
 */
export function KindChoice({
  forms,
  replyFields,
  ...props
}: Omit<KindFieldsProps, 'fields'> & {
  forms: readonly KindFormView[]
  replyFields: readonly KindFormFieldView[]
}) {
  const chosen = typeof props.values.kind === 'string' ? props.values.kind : ''
  return (
    <>
      <fieldset className="segmented">
        <legend>Send</legend>
        {forms.map(({ kind, label }) => (
          <label key={kind}>
            <input
              type="radio"
              name={`${props.idPrefix}-kind`}
              value={kind}
              checked={chosen === kind}
              onChange={() => props.onChange('kind', kind)}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <KindFields {...props} fields={formOf(forms, chosen)?.fields ?? []} />
      <KindFields {...props} renderFile={undefined} fields={replyFields} />
    </>
  )
}
