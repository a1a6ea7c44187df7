import { TradesCopierLinksPage } from "~/features/trades-copier";

export const meta = () => [{ title: "Trades Copier · Toolbox" }];

export default function TradesCopierPage() {
  return <TradesCopierLinksPage />;
}
