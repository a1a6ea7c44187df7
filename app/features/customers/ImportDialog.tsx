import type { ImportReport } from "@core/schemas/customers";
import { CUSTOMER_CSV_COLUMNS } from "@core/schemas/customers";
import { Upload } from "lucide-react";
import { useState } from "react";
import { Button } from "~/ui/Button";
import { ChoiceCards } from "~/ui/ChoiceCards";
import { DialogContent, DialogRoot, DialogTrigger } from "~/ui/Dialog";
import { Field } from "~/ui/Field";
import { FormAlert } from "~/ui/FormAlert";
import { Input } from "~/ui/Input";
import { importCustomers } from "./customersApi";

/**
 * Import customers from a CSV file: the file is checked first (every row, by line and field, nothing
 * written), then imported whole when it is valid, or its valid rows only if the person chooses so.
 * A progress bar follows the upload.
 */
export function ImportDialog({ onImported }: { onImported: () => void }) {
  const [open, setOpen] = useState(false);
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [done, setDone] = useState<ImportReport | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [existing, setExisting] = useState<"skip" | "update">("skip");

  const reset = () => {
    setExisting("skip");
    setFile(null);
    setReport(null);
    setDone(null);
    setProgress(null);
    setFailure(null);
  };

  async function send(mode: "all" | "validOnly", dryRun: boolean) {
    if (!file) return;
    setFailure(null);
    setProgress(0);
    try {
      const answer = await importCustomers({ csv: file.text, mode, dryRun, existing }, setProgress);
      if (dryRun) setReport(answer);
      else {
        setDone(answer);
        onImported();
      }
    } catch (err) {
      setFailure(err instanceof Error ? err.message : "The import failed.");
    } finally {
      setProgress(null);
    }
  }

  return (
    <DialogRoot
      open={open}
      onOpenChange={(next) => {
        if (!next) reset();
        setOpen(next);
      }}
    >
      <DialogTrigger asChild>
        <Button variant="secondary" size="sm">
          <Upload aria-hidden />
          Import CSV
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Import customers"
        description={`A CSV file with a header line. Columns: ${CUSTOMER_CSV_COLUMNS.join(", ")} (kind and name required; tags separated by ";"; owner a member's e-mail). A row whose e-mail a customer already has is that customer.`}
        className="max-w-2xl"
      >
        <Field label="CSV file">
          <Input
            type="file"
            accept=".csv,text/csv"
            onChange={async (e) => {
              const chosen = e.target.files?.[0];
              setReport(null);
              setDone(null);
              setFile(chosen ? { name: chosen.name, text: await chosen.text() } : null);
            }}
          />
        </Field>
        {progress !== null ? (
          <div className="grid gap-1">
            <progress className="h-2 w-full accent-primary" max={1} value={progress} aria-label="Sending the file" />
            <p className="text-xs text-muted" aria-live="polite">
              {progress < 1 ? `Sending… ${Math.round(progress * 100)}%` : "Checking the rows…"}
            </p>
          </div>
        ) : null}
        <FormAlert message={failure} />
        {report && !done ? <Report report={report} /> : null}
        {report && !done && report.existing > 0 ? (
          <ChoiceCards
            legend={`${report.existing} ${report.existing === 1 ? "row has the e-mail of a customer" : "rows have the e-mails of customers"} you already have`}
            name="existing"
            value={existing}
            onChange={setExisting}
            className="sm:grid-cols-2"
            choices={[
              { value: "skip", label: "Skip them", description: "Those customers stay as they are." },
              { value: "update", label: "Update them", description: "The file's columns replace theirs; an empty status or KYC keeps theirs." },
            ]}
          />
        ) : null}
        {done ? (
          <p role="status" className="rounded-md border border-success/30 bg-success/5 p-3 text-sm">
            {doneText(done)}
          </p>
        ) : null}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          {done ? (
            <Button onClick={() => setOpen(false)}>Close</Button>
          ) : report ? (
            <>
              <Button variant="secondary" onClick={reset}>
                Choose another file
              </Button>
              {report.errors.length === 0 ? (
                <Button onClick={() => send("all", false)} disabled={progress !== null}>
                  Import {report.rows} rows
                </Button>
              ) : report.valid > 0 ? (
                <Button onClick={() => send("validOnly", false)} disabled={progress !== null}>
                  Import the {report.valid} valid rows only
                </Button>
              ) : null}
            </>
          ) : (
            <Button onClick={() => send("all", true)} disabled={!file || progress !== null}>
              Check the file
            </Button>
          )}
        </div>
      </DialogContent>
    </DialogRoot>
  );
}

function doneText(done: ImportReport): string {
  const created = done.imported - done.updated;
  const parts = [`${created} new`];
  if (done.updated) parts.push(`${done.updated} updated`);
  if (done.skipped) parts.push(`${done.skipped} skipped (already customers)`);
  return `Imported ${done.imported} of ${done.rows} rows: ${parts.join(", ")}.`;
}

function Report({ report }: { report: ImportReport }) {
  const bad = new Set(report.errors.map((e) => e.line)).size;
  return (
    <div className="grid gap-2" aria-live="polite">
      <p className="text-sm" role="status">
        {report.rows} rows: {report.valid} valid{bad ? `, ${bad} with errors. Nothing is written unless you choose to import the valid rows only.` : "."}
      </p>
      {report.errors.length > 0 ? (
        <div className="max-h-64 overflow-auto rounded-md border border-border">
          <table className="w-full text-sm">
            <caption className="sr-only">Rows with errors</caption>
            <thead className="sticky top-0 bg-subtle text-left">
              <tr>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Line
                </th>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Field
                </th>
                <th scope="col" className="px-3 py-1.5 font-medium">
                  Problem
                </th>
              </tr>
            </thead>
            <tbody>
              {report.errors.slice(0, 500).map((e, i) => (
                <tr key={i} className="border-t border-border">
                  <td className="px-3 py-1.5 tabular-nums">{e.line}</td>
                  <td className="px-3 py-1.5 font-mono text-xs">{e.field || "—"}</td>
                  <td className="px-3 py-1.5">{e.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}
