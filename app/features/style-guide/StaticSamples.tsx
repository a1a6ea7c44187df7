import { Inbox, Plus, Trash2 } from "lucide-react";
import { EnabledState, PlatformTypeBadge } from "~/features/trade-platforms";
import { Badge } from "~/ui/Badge";
import { Button } from "~/ui/Button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "~/ui/Card";
import { BarChart } from "~/ui/charts/BarChart";
import { Sparkline } from "~/ui/charts/Sparkline";
import { EmptyState } from "~/ui/EmptyState";
import { Field } from "~/ui/Field";
import { Input } from "~/ui/Input";
import { Select } from "~/ui/Select";
import { Skeleton } from "~/ui/Skeleton";
import { Spinner } from "~/ui/Spinner";
import { Switch } from "~/ui/Switch";
import { Sample } from "./ThemePanels";

// Sample figures for the charts (a style guide, not data).
const EQUITY = [102, 104, 103, 107, 106, 110, 114, 112, 117, 121, 119, 124];
const VOLUME = [
  { label: "Mon", value: 412 },
  { label: "Tue", value: 538 },
  { label: "Wed", value: 301 },
  { label: "Thu", value: 622 },
  { label: "Fri", value: 497 },
];

/** Every block that looks the same in both themes, drawn once per theme by ThemePanels. */
export function StaticSamples() {
  return (
    <>
      <Sample title="Buttons">
        <div className="flex flex-wrap items-center gap-2">
          <Button>Primary</Button>
          <Button variant="secondary">Secondary</Button>
          <Button variant="ghost">Ghost</Button>
          <Button variant="danger">
            <Trash2 aria-hidden />
            Delete
          </Button>
          <Button variant="link">Link</Button>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Button size="sm">Small</Button>
          <Button size="lg">
            <Plus aria-hidden />
            Large
          </Button>
          <Button size="icon" variant="secondary" aria-label="Add">
            <Plus aria-hidden />
          </Button>
          <Button loading>Saving</Button>
          <Button disabled>Disabled</Button>
        </div>
      </Sample>
      <Sample title="Form controls">
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Server address" description="Host and port of the manager interface.">
            <Input placeholder="mt5.example.com:443" />
          </Field>
          <Field label="Manager login" error="Enter the manager login.">
            <Input defaultValue="" />
          </Field>
          <Field label="Platform type">
            <Select
              defaultValue="MT5"
              options={[
                { value: "MT4", label: "MetaTrader 4" },
                { value: "MT5", label: "MetaTrader 5" },
                { value: "MatchTrader", label: "Match-Trader" },
              ]}
            />
          </Field>
          <div className="flex items-center gap-3 self-end pb-2">
            <Switch defaultChecked aria-label="Enabled" />
            <span className="text-sm">Enabled</span>
          </div>
        </div>
      </Sample>
      <Sample title="Badges">
        <div className="flex flex-wrap items-center gap-2">
          <Badge>Neutral</Badge>
          <Badge tone="primary">Admin</Badge>
          <Badge tone="success">Up</Badge>
          <Badge tone="warning">Pending</Badge>
          <Badge tone="danger">Down</Badge>
          <Badge tone="info">Info</Badge>
          <Badge tone="outline">Member</Badge>
          <PlatformTypeBadge type="MT4" />
          <PlatformTypeBadge type="MT5" />
          <PlatformTypeBadge type="MatchTrader" />
          <EnabledState enabled showLabel />
          <EnabledState enabled={false} showLabel />
        </div>
      </Sample>
      <Sample title="Card">
        <Card>
          <CardHeader>
            <CardTitle>Demo MT5</CardTitle>
            <CardDescription>Simulated server · 1,204 accounts</CardDescription>
          </CardHeader>
          <CardContent>
            <Sparkline values={EQUITY} label="Equity over the last 12 hours" />
          </CardContent>
          <CardFooter className="justify-end">
            <Button size="sm" variant="secondary">
              Open
            </Button>
          </CardFooter>
        </Card>
      </Sample>
      <Sample title="Charts">
        <BarChart data={VOLUME} label="Volume in lots per day" />
      </Sample>
      <Sample title="Loading and empty">
        <div className="flex items-center gap-4">
          <Spinner size="sm" />
          <Spinner />
          <Spinner size="lg" />
          <div className="grid flex-1 gap-2">
            <Skeleton className="h-4 w-3/4" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        </div>
        <EmptyState
          icon={Inbox}
          title="Nothing in the inbox"
          description="Notifications appear here as they arrive."
          action={<Button size="sm">Notification settings</Button>}
        />
      </Sample>
    </>
  );
}
