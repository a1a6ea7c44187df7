/** "Send test" of a channel: one try now, logged like any delivery, not counted against the channel. */
import type { Db } from "../../db/client.ts";
import { closeTestDelivery, openTestDelivery } from "./centerRepository.ts";
import type { ChannelRow } from "./repository.ts";
import { DeliveryFailed, type OutgoingMessage } from "./senders.ts";

export interface TestResult {
  delivered: boolean;
  status: number | null;
  error: string | null;
}

export async function sendTest(
  db: Db,
  publicUrl: string,
  sendBy: (channel: ChannelRow, message: OutgoingMessage) => Promise<number | null>,
  channel: ChannelRow,
): Promise<TestResult> {
  const delivery = await openTestDelivery(db, channel);
  const message: OutgoingMessage = {
    deliveryId: delivery.id,
    organizationId: channel.organizationId,
    type: "test",
    severity: "info",
    title: "Test notification from Toolbox",
    body: `This is a test of the channel "${channel.name}". If you read this, it works.`,
    link: `${publicUrl}/settings/notifications`,
    occurredAt: delivery.createdAt.toISOString(),
    test: true,
  };
  try {
    const status = await sendBy(channel, message);
    await closeTestDelivery(db, delivery.id, { status: "delivered", lastStatus: status });
    return { delivered: true, status, error: null };
  } catch (err) {
    const failure = err instanceof DeliveryFailed ? err : new DeliveryFailed((err as Error).message);
    await closeTestDelivery(db, delivery.id, { status: "failed", lastStatus: failure.status, lastError: failure.message.slice(0, 500) });
    return { delivered: false, status: failure.status, error: failure.message };
  }
}
