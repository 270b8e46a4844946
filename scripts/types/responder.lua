---@meta responder
-- lua-language-server definitions for ResponderSandbox scenarios (SPEC §2 and the test API
-- of §3). Not loaded at run time: point the language server at this folder, e.g. in
-- `.luarc.json`: { "workspace.library": ["scripts/types"], "runtime.version": "Lua 5.4" }

-----------------------------------------------------------------------------------------------
-- 2.1 Types and values
-----------------------------------------------------------------------------------------------

---A declared event or error type. Calling it makes a value: `ItemSelected { item = "b" }`.
---@class ValueType
---@field name string The type's name.
---@field parent ValueType? The parent type, if declared with one.
---@operator call(table?): Value
local ValueType = {}

---True when `value`'s type is this type or a descendant of it.
---@param value any
---@return boolean
function ValueType:is(value) end

---An event type (`Event "Name"`).
---@class EventType: ValueType
---@operator call(table?): Event

---An error type (`Error "Name"`, `AlertableError "Name"`, `LuaError`, `CancellationError`).
---@class ErrorType: ValueType
---@operator call(table?): ErrorValue

---An immutable event or error value. Fields given at creation are readable (`e.item`);
---assigning raises an error naming `transformEvent`. Prints as `ItemSelected{item="b"}`.
---@class Value
---@field type ValueType The value's type.
---@field name string The type's name.
---@field [string] any The value's fields.

---@class Event: Value
---@field type EventType

---@class ErrorValue: Value
---@field type ErrorType
---@field cause ErrorValue? The error this one replaced (raised inside an error responder).

---A value of an `AlertableError` type.
---@class AlertableErrorValue: ErrorValue
---@field message string
---@field title string?

---A Lua runtime error (or `error("text")`) raised inside a responder.
---@class LuaErrorValue: ErrorValue
---@field message string
---@field traceback string
---@field node Node Where it was raised.

---Declares an event type: `Event "Name"` or `Event("Name", ParentType)`.
---@param name string
---@param parent EventType?
---@return EventType
function Event(name, parent) end

---Declares an error type: `Error "Name"` or `Error("Name", ParentType)`.
---@param name string
---@param parent ErrorType?
---@return ErrorType
function Error(name, parent) end

---Declares an error type whose values require `message` (string) and may have `title`.
---@param name string
---@param parent ErrorType?
---@return ErrorType
function AlertableError(name, parent) end

---The built-in error type for Lua runtime errors raised inside responders.
---@type ErrorType
LuaError = nil

---The error a cancelled sleeping task wakes with.
---@type ErrorType
CancellationError = nil

-----------------------------------------------------------------------------------------------
-- 2.2 Nodes
-----------------------------------------------------------------------------------------------

---The table given to a node constructor: the array part are children, `id` the identifier,
---other keys become `node.props` (controls read their own keys, see 2.9).
---@class NodeSpec
---@field id string?
---@field [integer] Node
---@field [string] any

---Options of a responder registration.
---@class ResponderOptions
---@field id string? Identifier for `removeResponder`.
---@field once boolean? Removed just before it first runs.

---What a responder function gets as second argument.
---@class DispatchContext
---@field node Node Where the responder is registered.
---@field origin Node Where the dispatch started.
---@field path Node[] The fixed path of the dispatch.

---An entry of `node:responders()`.
---@class ResponderEntry
---@field index integer
---@field kind string `receiveEvent`, `handleEvent`, …, `triggers`, `reports`.
---@field filter ValueType?
---@field id string?
---@field once boolean

---@alias SafetyLevel "relaxed"|"strict"|"disabled"
---@alias EventResponder fun(event: Event, ctx: DispatchContext): boolean?
---@alias ErrorResponder fun(error: ErrorValue, ctx: DispatchContext): boolean?
---@alias ControlEvent "touchUpInside"|"valueChanged"|"editingChanged"|"editingDidBegin"|"editingDidEnd"|"primaryActionTriggered"

---A node of the view tree. `tostring(node)` is `Name#id` or `Name`.
---`View "Name"` is a node that can also be called with a `NodeSpec`.
---@class Node
---@field name string
---@field id string?
---@field parent Node?
---@field children Node[] A fresh array.
---@field props table Extra keys from the constructor; the script may change them.
---@field on NodeClosures Closure sugar (`node.on.tap(fn)`), where the node supports it.
---@field isEnabled boolean False when the node or an ancestor is disabled (or an AsyncButton loads).
---@field isLoading boolean? An AsyncButton: whether one of its tasks runs.
---@operator call(NodeSpec): Node
local Node = {}

---Appends (or inserts at `position`) a child, moving it if it had a parent.
---@param child Node
---@param position integer?
---@return Node
function Node:add(child, position) end

---Detaches the node from its parent (disappear handlers run in a mounted tree).
---@return Node
function Node:remove() end

---First node of the subtree matching `Name`, `#id` or `Name#id`, in document order.
---@param selector string
---@return Node?
function Node:find(selector) end

---All nodes of the subtree matching the selector, in document order.
---@param selector string
---@return Node[]
function Node:findAll(selector) end

---`Root > Grid > Item#b`.
---@return string
function Node:path() end

---Delivers an event synchronously from this node upward.
---@param event Event
---@return Outcome
function Node:trigger(event) end

---Delivers an error synchronously from this node upward.
---@param error ErrorValue
---@return Outcome
function Node:report(error) end

---`true` = handled; `false`/`nil` = the original event goes on.
---@param filter EventType|EventResponder
---@param fn EventResponder|ResponderOptions?
---@param options ResponderOptions?
---@return Node
function Node:receiveEvent(filter, fn, options) end

---Always stops the event.
---@param filter EventType|fun(event: Event, ctx: DispatchContext)
---@param fn fun(event: Event, ctx: DispatchContext)|ResponderOptions?
---@param options ResponderOptions?
---@return Node
function Node:handleEvent(filter, fn, options) end

---The returned event goes on.
---@param filter EventType|fun(event: Event, ctx: DispatchContext): Event
---@param fn fun(event: Event, ctx: DispatchContext): Event|ResponderOptions?
---@param options ResponderOptions?
---@return Node
function Node:transformEvent(filter, fn, options) end

---`true` = handled; `false`/`nil` = the error goes on.
---@param filter ErrorType|ErrorResponder
---@param fn ErrorResponder|ResponderOptions?
---@param options ResponderOptions?
---@return Node
function Node:receiveError(filter, fn, options) end

---Always stops the error.
---@param filter ErrorType|fun(error: ErrorValue, ctx: DispatchContext)
---@param fn fun(error: ErrorValue, ctx: DispatchContext)|ResponderOptions?
---@param options ResponderOptions?
---@return Node
function Node:handleError(filter, fn, options) end

---The returned error goes on.
---@param filter ErrorType|fun(error: ErrorValue, ctx: DispatchContext): ErrorValue
---@param fn fun(error: ErrorValue, ctx: DispatchContext): ErrorValue|ResponderOptions?
---@param options ResponderOptions?
---@return Node
function Node:transformError(filter, fn, options) end

---The error stops; the returned event starts at the next entry of this node.
---@param filter ErrorType|fun(error: ErrorValue, ctx: DispatchContext): Event
---@param fn fun(error: ErrorValue, ctx: DispatchContext): Event|ResponderOptions?
---@param options ResponderOptions?
---@return Node
function Node:catchError(filter, fn, options) end

---The node's responder list, in order.
---@return ResponderEntry[]
function Node:responders() end

---Removes the responder registered with this id.
---@param id string
---@return Node
function Node:removeResponder(id) end

---Sets the safety level for the subtree (nearest setting wins).
---@param level SafetyLevel
---@return Node
function Node:safetyLevel(level) end

---Whether declared types need explicit responders (default true).
---@param required boolean
---@return Node
function Node:requireExplicitResponders(required) end

---Declares the event types this subtree triggers (check 3 and 4).
---@param ... EventType
---@return Node
function Node:triggers(...) end

---Declares the error types this subtree reports.
---@param ... ErrorType
---@return Node
function Node:reports(...) end

-----------------------------------------------------------------------------------------------
-- 2.3 Outcomes, 2.8 traces
-----------------------------------------------------------------------------------------------

---The result of `trigger`, `report` and the other top-level actions.
---@class Outcome
---@field handled boolean
---@field by Node? The node that consumed it.
---@field responder string? E.g. `"handleEvent"`.
---@field value Value The final value, after transforms and catches.
---@field trace Trace

---@alias TraceDecision "skipped"|"passed"|"handled"|"transformed"|"caught"|"threw"|"declared"|"unhandled"

---@class TraceStep
---@field node Node
---@field index integer
---@field responder string
---@field filter ValueType?
---@field value Value
---@field decision TraceDecision
---@field result Value?

---A list of steps; `tostring(trace)` is the stable text form used by golden tests.
---@class Trace
---@field [integer] TraceStep

-----------------------------------------------------------------------------------------------
-- 2.5 Warnings, 2.7 publishing, alerts
-----------------------------------------------------------------------------------------------

---@alias WarningKind "unhandledEvent"|"unhandledError"|"undeclaredEvent"|"undeclaredError"|"missingResponder"|"subscriberWithoutPublisher"|"unhandledAction"

---@class Warning
---@field kind WarningKind
---@field message string
---@field node Node
---@field value Value?
---@field location string `FILE:LINE`

---@alias PublishDestination "lastLevel"|"firstLevel"|"allLevels"

---Delivers events to subscribers below; `pub(event)` is `pub:publish(event)`.
---@class Publisher
---@operator call(Event): integer
local Publisher = {}

---@param event Event
---@return integer reached How many subscribers were reached.
function Publisher:publish(event) end

---@param type EventType
---@param options { destination: PublishDestination?, id: string? }?
---@return Publisher
function Node:publisher(type, options) end

---@param type EventType
---@param fn fun(event: Event)
---@param options { id: string? }?
---@return Node
function Node:subscribe(type, fn, options) end

---@param spec fun()|{ trigger: Event|fun(), count: integer? }
---@return Node
function Node:onTapGesture(spec) end

---Consumes alertable errors and presents an alert (`responder.alert()`).
---@return Node
function Node:handleAlertErrors() end

---@class Alert
---@field title string `"Error"` when the error has none.
---@field message string
---@field button string `"Okay"`.
---@field node Node

-----------------------------------------------------------------------------------------------
-- 2.9 The communication-pattern kit
-----------------------------------------------------------------------------------------------

---@class State
---@field value any
local State_ = {}

---A binding that reads and writes this state.
---@return Binding
function State_:binding() end

---@class Binding
---@field value any

---@param initial any
---@return State
function State(initial) end

---@param spec { get: fun(): any, set: fun(value: any) }
---@return Binding
function Binding(spec) end

---What a kit registration returns (`onChange`, `observe`, `onReceive`, `node.on.*`).
---@class Handle
---@field isCancelled boolean
---@field kind string
local Handle = {}

---Removes the registration.
---@return Handle
function Handle:cancel() end

---Runs while the node is mounted.
---@param source State|Binding
---@param fn fun(new: any, old: any)
---@return Handle
function Node:onChange(source, fn) end

---Disables the node's subtree (SwiftUI `.disabled`); nil clears the setting.
---@param flag boolean|State|Binding|nil
---@return Node
function Node:disabled(flag) end

---@class ActionOptions
---@field event ControlEvent? Default `touchUpInside`.
---@field id string? An action with an id already present replaces it in place.
---@field title string?

---@class ActionEntry
---@field event ControlEvent
---@field id string?
---@field title string?
---@field target Node|table|nil
---@field selector string?

---Returns the action's id (generated, `action#n`, when none is given).
---@param fn fun(sender: Node, action: ActionEntry)
---@param options ActionOptions?
---@return string
function Node:addAction(fn, options) end

---`target` nil searches the responder chain for a node that declared `canPerform(selector)`.
---@param target Node|table|nil
---@param selector string
---@param event ControlEvent?
---@return Node
function Node:addTarget(target, selector, event) end

---@param id string
---@param event ControlEvent?
---@return Node
function Node:removeAction(id, event) end

---@param target Node|table|nil
---@param selector string?
---@param event ControlEvent?
---@return Node
function Node:removeTarget(target, selector, event) end

---The dispatch table, in order.
---@return ActionEntry[]
function Node:eventHandlers() end

---Declares that this node performs `selector` for nil-target actions.
---@param selector string
---@param fn fun(sender: Node, action: ActionEntry)
---@return Node
function Node:canPerform(selector, fn) end

---@class NodeClosures
---@field tap fun(fn: fun()): Handle
---@field valueChange fun(fn: fun(value: any)): Handle
---@field textChange fun(fn: fun(text: string)): Handle

---Inserts a segment at `at` (default: the end).
---@param segment { title: string, action: fun(sender: Node, action: ActionEntry)?, id: string? }
---@param at integer?
---@return Node
function Node:insertSegment(segment, at) end

---@param index integer
---@param fn fun(sender: Node, action: ActionEntry)|nil
---@return Node
function Node:setAction(index, fn) end

---@param id string
---@return integer?
function Node:segmentIndex(id) end

---@param index integer
---@return function?
function Node:actionForSegment(index) end

---Sets an environment value for the subtree.
---@param key string
---@param value any
---@return Node
function Node:environment(key, value) end

---The nearest environment value.
---@param key string
---@return any
function Node:env(key) end

---@class PreferenceKey
---@field name string

---@param name string
---@param spec { default: any, reduce: fun(acc: any, nxt: any): any }
---@return PreferenceKey
function Preference(name, spec) end

---@param key PreferenceKey
---@param value any
---@return Node
function Node:preference(key, value) end

---Fires whenever the reduced value of the subtree changes (mount, preference, add, remove).
---@param key PreferenceKey
---@param fn fun(value: any)
---@return Node
function Node:onPreferenceChange(key, fn) end

---The value reduced in document order over the subtree.
---@param key PreferenceKey
---@return any
function Node:preferenceValue(key) end

---@class Note
---@field name string
---@field object any
---@field payload any

---Receives posts while mounted; with `{ object = x }` only posts with that object.
---@param name string
---@param fn fun(payload: any, note: Note)
---@param options { object: any }?
---@return Handle
function Node:onReceive(name, fn, options) end

---Observes `node.props[prop]` while the node is mounted.
---@param prop string
---@param fn fun(new: any, old: any)
---@return Handle
function Node:observe(prop, fn) end

---@param fn fun()
---@return Node
function Node:onAppear(fn) end

---@param fn fun()
---@return Node
function Node:onDisappear(fn) end

---@class Task
---@field id integer?
---@field node Node?
local Task = {}

---A sleeping task wakes with a `CancellationError`; the ended callback still runs.
function Task:cancel() end

---@class Timer
---@field isCancelled boolean
---@field fired integer
---@field interval number
local Timer = {}

---@return Timer
function Timer:cancel() end

---Calls `fn` once when the virtual clock has advanced `seconds`.
---@param seconds number
---@param fn fun(timer: Timer)
---@return Timer
function after(seconds, fn) end

---Calls `fn` every `seconds` of virtual time until cancelled.
---@param seconds number
---@param fn fun(timer: Timer)
---@return Timer
function every(seconds, fn) end

---Starts a task without a button; callbacks and errors from `options.node`.
---@param fn fun(task: Task)
---@param options { node: Node }?
---@return Task
function task(fn, options) end

---@param fn fun(task: Task)
---@return Node
function Node:onAsyncTaskStarted(fn) end

---@param fn fun(task: Task)
---@return Node
function Node:onAsyncTaskEnded(fn) end

---The task when it starts, nil when it ends.
---@param fn fun(task: Task?)
---@return Node
function Node:onAsyncTaskChanged(fn) end

-----------------------------------------------------------------------------------------------
-- Constructors (globals) and the module table
-----------------------------------------------------------------------------------------------

---`View "Name" { child, id = "x", key = value }`.
---@param name string
---@return Node
function View(name) end

---@class EventButtonSpec: NodeSpec
---@field event Event|fun(): Event Evaluated at each tap when a function.

---`EventButton "Title" { event = E{…} }`.
---@param title string
---@return fun(spec: EventButtonSpec): Node
function EventButton(title) end

---@class ButtonSpec: NodeSpec
---@field action fun(sender: Node?) Required.

---@param title string
---@return fun(spec: ButtonSpec): Node
function Button(title) end

---@class AsyncButtonSpec: NodeSpec
---@field action fun(task: Task?) Runs as a task; `sleep` may be used inside.
---@field disabled boolean|State|Binding|nil
---@field disabledWhenLoading boolean? Default true.

---@param title string
---@return fun(spec: AsyncButtonSpec): Node
function AsyncButton(title) end

---@class TextFieldSpec: NodeSpec
---@field text Binding
---@field onEditingChanged fun(editing: boolean)?
---@field onCommit fun()?

---@param label string
---@return fun(spec: TextFieldSpec): Node
function TextField(label) end

---@class SecureFieldSpec: NodeSpec
---@field text Binding
---@field onCommit fun()?

---@param label string
---@return fun(spec: SecureFieldSpec): Node
function SecureField(label) end

---@class SliderSpec: NodeSpec
---@field value Binding
---@field range number[]? `{lo, hi}`
---@field step number?
---@field onEditingChanged fun(editing: boolean)?

---`Slider { value = binding, range = {0, 1}, step = 0.1 }`.
---@param spec SliderSpec
---@return Node
function Slider(spec) end

---@class StepperSpec: NodeSpec
---@field value Binding?
---@field range number[]?
---@field step number?
---@field onEditingChanged fun(editing: boolean)?
---@field onIncrement fun()|false|nil Free form: both keys required, `false` means none.
---@field onDecrement fun()|false|nil

---@param label string
---@return fun(spec: StepperSpec): Node
function Stepper(label) end

---@class ToggleSpec: NodeSpec
---@field isOn Binding

---@param label string
---@return fun(spec: ToggleSpec): Node
function Toggle(label) end

---@class SegmentedControlSpec: NodeSpec
---@field segments { title: string, action: fun()? }[]

---@param spec SegmentedControlSpec
---@return Node
function SegmentedControl(spec) end

---Makes `root` the application's tree: appear handlers and the explicit responder checks run.
---@param root Node
---@return Node
function mount(root) end

---Performs the node's tap actions (an error if it has none).
---@param node Node
---@param count integer?
---@return Outcome?
function tap(node, count) end

---Begins editing and updates the binding per character.
---@param node Node
---@param text string
function typeText(node, text) end

---onCommit, then editing ends as on Return.
---@param node Node
function commit(node) end

---@param node Node
function focus(node) end

---Ends editing; nothing when not editing.
---@param node Node
function blur(node) end

---Clamped, stepped; editing true → value → false.
---@param node Node
---@param value number
function slide(node, value) end

---@param node Node
function increment(node) end

---@param node Node
function decrement(node) end

---@param node Node
function toggle(node) end

---@param node Node
---@param index integer
function selectSegment(node, index) end

---Fires every handler registered on `control` for `event`, in order.
---@param control Node
---@param event ControlEvent
function sendActions(control, event) end

---Posts a notification to `onReceive` handlers of mounted nodes.
---@param name string
---@param payload any
function post(name, payload) end

---Suspends the current task (an error outside a task).
---@param seconds number
function sleep(seconds) end

---Moves the virtual clock and runs what is due.
---@param seconds number
function advance(seconds) end

---The virtual clock, in seconds.
---@return number
function now() end

---The `responder` module (`require "responder"`); its public names are also globals.
---@class responder
---@field version string
---@field Event fun(name: string, parent: EventType?): EventType
---@field Error fun(name: string, parent: ErrorType?): ErrorType
---@field AlertableError fun(name: string, parent: ErrorType?): ErrorType
---@field LuaError ErrorType
---@field CancellationError ErrorType
---@field View fun(name: string): Node
---@field EventButton fun(title: string): fun(spec: EventButtonSpec): Node
---@field mount fun(root: Node): Node
---@field tap fun(node: Node, count: integer?): Outcome?
responder = {}

---The mounted root, if any.
---@return Node?
function responder.mounted() end

---The last top-level action's trace.
---@return Trace?
function responder.lastTrace() end

---The recorded safety warnings (relaxed level).
---@return Warning[]
function responder.warnings() end

---Empties `responder.warnings()`.
function responder.clearWarnings() end

---The presented alert, or nil.
---@return Alert?
function responder.alert() end

function responder.dismissAlert() end

---Clears the mounted tree, warnings, alert, traces and clock.
function responder.reset() end

-----------------------------------------------------------------------------------------------
-- §3 `responder test`: the busted-compatible subset and the responder assertions
-----------------------------------------------------------------------------------------------

---@param name string
---@param fn fun()
function describe(name, fn) end

---Each `it` runs in a fresh world.
---@param name string
---@param fn fun()
function it(name, fn) end

---@param name string
---@param fn fun()?
function pending(name, fn) end

---@param fn fun()
function before_each(fn) end

---@param fn fun()
function after_each(fn) end

---@param fn fun()
function setup(fn) end

---@param fn fun()
function teardown(fn) end

---A spy: callable; records calls.
---@class Spy
---@field calls table[]
---@operator call(...): any
local Spy = {}

---@return Spy
function Spy:clear() end

function Spy:revert() end

---@class SpyAssertion
---@field was SpyAssertion
---@field was_not SpyAssertion
---@field called fun(n: integer?): boolean
---@field called_with fun(...): boolean
---@field returned_with fun(...): boolean

---@class spy
spy = {}

---@param fn function?
---@return Spy
function spy.new(fn) end

---@param tbl table
---@param name string
---@return Spy
function spy.on(tbl, name) end

---@param v any
---@return boolean
function spy.is_spy(v) end

---Chain forms: `assert.are.equal`, `assert.is.truthy`, `assert.are_not.same`, `assert.is_not.nil`, …
---@class AssertChain
---@field are AssertChain
---@field is AssertChain
---@field are_not AssertChain
---@field is_not AssertChain
---@field has AssertChain
---@field has_no AssertChain
---@field equal fun(expected: any, actual: any, message: string?)
---@field equals fun(expected: any, actual: any, message: string?)
---@field same fun(expected: any, actual: any, message: string?)
---@field truthy fun(value: any, message: string?)
---@field falsy fun(value: any, message: string?)
---@field is_true fun(value: any, message: string?)
---@field is_false fun(value: any, message: string?)
---@field is_nil fun(value: any, message: string?)
---@field error fun(fn: fun(), expected: any?, message: string?)
---@field errors fun(fn: fun(), expected: any?, message: string?)

---@class assert: AssertChain
---@operator call(any, string?): any
assert = {}

---@param expected any
---@param actual any
---@param message string?
function assert.equal(expected, actual, message) end

---Deep comparison; failures show a −/+ diff.
---@param expected any
---@param actual any
---@param message string?
function assert.same(expected, actual, message) end

---@param value any
---@param message string?
function assert.is_true(value, message) end

---@param value any
---@param message string?
function assert.is_false(value, message) end

---@param value any
---@param message string?
function assert.truthy(value, message) end

---@param value any
---@param message string?
function assert.falsy(value, message) end

---@param value any
---@param message string?
function assert.is_nil(value, message) end

---@param fn fun()
---@param expected any? The error value or message.
---@param message string?
function assert.has_error(fn, expected, message) end

---@param fn fun()
---@param pattern string A Lua pattern matched against the error message.
---@param message string?
function assert.error_matches(fn, pattern, message) end

---@param s Spy
---@return SpyAssertion
function assert.spy(s) end

---The outcome was handled (by `node`, a node or a selector, when given).
---@param outcome Outcome
---@param node Node|string?
function assert.handled(outcome, node) end

---@param outcome Outcome
function assert.unhandled(outcome) end

---Compares the trace's text lines; `*` is a wildcard.
---@param traceOrOutcome Trace|Outcome
---@param expected string|string[]
function assert.trace(traceOrOutcome, expected) end

---`fn` records at least one warning of `kind`.
---@param kind WarningKind
---@param fn fun()
function assert.warns(kind, fn) end

---@param fn fun()
function assert.no_warnings(fn) end

---Compares `text` with the stored snapshot `name` (`--update-snapshots` rewrites it).
---@param name string
---@param text string
function assert.snapshot(name, text) end
