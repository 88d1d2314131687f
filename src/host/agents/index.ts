/** The front door of src/host/agents: the agent model's bindings (attach, detach, switch) and what other rooms build on it. */
export {};
