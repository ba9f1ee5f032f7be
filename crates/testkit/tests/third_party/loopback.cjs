// Preloaded into third-party Node servers under test (NODE_OPTIONS=--require):
// whatever host they ask for, they listen on 127.0.0.1 only.
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const callback = args.find((a) => typeof a === "function");
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    return listen.call(this, { port: Number(args[0]), host: "127.0.0.1" }, callback);
  }
  if (args[0] && typeof args[0] === "object" && args[0].path === undefined) {
    args[0] = { ...args[0], host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
