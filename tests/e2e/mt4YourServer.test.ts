/**
 * A newcomer connects a real MT4 server through "Your server": the local MT4 manager gateway (the
 * one `npm run simulator` runs, HTTPS with its own CA), started by this test. A wrong password
 * explains itself; the right one tests green, saves, and the server's accounts show in /users
 * (the steps: ./support/yourServer.ts).
 */
import { describeYourServer, MANAGER_LOGIN } from "./support/yourServer.ts";

describeYourServer({
  platform: "MT4",
  type: "MT4",
  protocolServer: "mt4Gateway",
  seed: 4004,
  newcomer: { name: "Dorothy Vaughan", password: "orbital-mechanics-1962" },
  ...MANAGER_LOGIN,
});
