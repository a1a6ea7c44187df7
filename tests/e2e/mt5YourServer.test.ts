/**
 * A newcomer connects a real MT5 server through "Your server": the local MT5 Web API protocol
 * server (the one `npm run simulator` runs, HTTPS with its own CA), started by this test. A wrong
 * password explains itself; the right one tests green, saves, and the server's accounts show in
 * /users (the steps: ./support/yourServer.ts).
 */
import { describeYourServer, MANAGER_LOGIN } from "./support/yourServer.ts";

describeYourServer({
  platform: "MT5",
  type: "MT5",
  protocolServer: "mt5WebApi",
  seed: 5005,
  newcomer: { name: "Katherine Johnson", password: "orbital-mechanics-1962" },
  ...MANAGER_LOGIN,
});
