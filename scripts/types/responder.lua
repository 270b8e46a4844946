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
---@field mounted boolean Whether the node is in the mounted tree.
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
---@field index integer position in `node:responders()` (subscribers come after the responder entries)
---@field responder string the kind, as `outcome.responder` names it (`handleEvent`)
---@field label string the entry's label (`handleEvent(ItemSelected)`)
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

---Delivers `event` to the subscribers it reaches; returns how many.
---@param event Event
---@return integer reached How many subscribers were reached.
function Publisher:publish(event) end

---A publisher of `type` events at this node, reaching the subscribers below it (per `destination`).
---@param type EventType
---@param options { destination: PublishDestination?, id: string? }?
---@return Publisher
function Node:publisher(type, options) end

---Receives the `type` events a publisher above this node publishes.
---@param type EventType
---@param fn fun(event: Event)
---@param options { id: string? }?
---@return Node
function Node:subscribe(type, fn, options) end

---Makes the node tappable: `tap(node)` runs `fn` or triggers the event (after `count` taps).
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

---A value whose changes reach its bindings and `onChange` handlers.
---@param initial any
---@return State
function State(initial) end

---A binding with its own `get` and `set`.
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

---An entry of the dispatch table (`eventHandlers`) or the action a handler gets.
---@class ActionEntry
---@field index integer? Its position (`eventHandlers`).
---@field kind "action"|"target"|nil `eventHandlers`: added by `addAction` or `addTarget`.
---@field sender Node? The control (handlers).
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

---Removes the actions with that id (for `event`, when given).
---@param id string
---@param event ControlEvent?
---@return Node
function Node:removeAction(id, event) end

---Removes the matching targets; each nil argument matches any.
---@param target Node|table|nil
---@param selector string?
---@param event ControlEvent?
---@return Node
function Node:removeTarget(target, selector, event) end

---The dispatch table, in order.
---@return ActionEntry[]
function Node:eventHandlers() end

---Declares that this node performs `selector` for nil-target actions (a second declaration
---replaces the first); without `fn`, tells whether the node declared it.
---@param selector string
---@param fn fun(sender: Node, action: ActionEntry)
---@return Node
---@overload fun(self: Node, selector: string): boolean
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

---Replaces segment `index`'s action (nil removes it).
---@param index integer
---@param fn fun(sender: Node, action: ActionEntry)|nil
---@return Node
function Node:setAction(index, fn) end

---The index of the segment with that id, or nil.
---@param id string
---@return integer?
function Node:segmentIndex(id) end

---Segment `index`'s action, or nil.
---@param index integer
---@return function?
function Node:actionForSegment(index) end

---Sets an environment value for the subtree.
---@param key string
---@param value any
---@return Node
function Node:environment(key, value) end

---The nearest environment value (`default` when no ancestor sets one).
---@param key string
---@param default any?
---@return any
function Node:env(key, default) end

---@class PreferenceKey
---@field name string

---A preference key: values set with `node:preference` are reduced over a subtree (the last wins by default).
---@param name string
---@param spec { default: any, reduce: (fun(acc: any, nxt: any): any)? } required (SwiftUI's PreferenceKey needs a default); other keys are an error
---@return PreferenceKey
function Preference(name, spec) end

---Sets this node's value for the preference.
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

---Runs `fn` when the node enters the mounted tree.
---@param fn fun()
---@return Node
function Node:onAppear(fn) end

---Runs `fn` when the node leaves the mounted tree.
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

---Stops the timer.
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

---Runs `fn` when a task of this node starts.
---@param fn fun(task: Task)
---@return Node
function Node:onAsyncTaskStarted(fn) end

---Runs `fn` when a task of this node ends.
---@param fn fun(task: Task)
---@return Node
function Node:onAsyncTaskEnded(fn) end

---The task when it starts, nil when it ends.
---@param fn fun(task: Task?)
---@return Node
function Node:onAsyncTaskChanged(fn) end

-----------------------------------------------------------------------------------------------
-- Controls: the fields each kind adds (read-only; change them through the binding or input)
-----------------------------------------------------------------------------------------------

---A `Button`.
---@class ButtonNode: Node
---@field title string? The title given to the constructor.

---An `AsyncButton`: a control like `Button` whose action runs as a task (its `touchUpInside`
---entry "action"; `addAction`, `sendActions` and `eventHandlers` work as on a Button).
---@class AsyncButtonNode: Node
---@field title string? The title given to the constructor.
---@field isLoading boolean Whether one of its tasks runs.

---A `TextField`.
---@class TextFieldNode: Node
---@field title string? The label given to the constructor.
---@field text string? The bound text (nil when the binding's `get` fails).
---@field isEditing boolean Between `focus`/`typeText` and `blur`/`commit`.

---A `SecureField`.
---@class SecureFieldNode: Node
---@field title string? The label given to the constructor.
---@field text string? The bound text (nil when the binding's `get` fails).
---@field isEditing boolean Between `focus`/`typeText` and `blur`/`commit`.

---A `Slider`.
---@class SliderNode: Node
---@field title string? The label given to the constructor.
---@field value number? The bound value (nil when the binding's `get` fails).
---@field isEditing boolean True while `slide` moves it.
---@field range number[]? `{lo, hi}`, a fresh table.
---@field step number? The step, if any.

---A `Stepper`.
---@class StepperNode: Node
---@field title string? The label given to the constructor.
---@field value number? The bound value (nil without a binding or when its `get` fails).
---@field isEditing boolean True while `increment`/`decrement` change it.
---@field range number[]? `{lo, hi}`, a fresh table.
---@field step number? The step, if any.

---A `Toggle`.
---@class ToggleNode: Node
---@field title string? The label given to the constructor.
---@field isOn boolean? The bound value (nil when the binding's `get` fails).

---A `SegmentedControl`.
---@class SegmentedControlNode: Node
---@field title string? The title given to the constructor.
---@field selectedSegment integer? The selected segment's index (1-based), nil before any selection.
---@field segments string[] The segments' titles, a fresh array.

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

---`Button "Title" { action = fn }`.
---@param title string
---@return fun(spec: ButtonSpec): ButtonNode
---@overload fun(spec: ButtonSpec): ButtonNode
function Button(title) end

---@class AsyncButtonSpec: NodeSpec
---@field action fun(task: Task?) Runs as a task; `sleep` may be used inside.
---@field disabled boolean|State|Binding|nil
---@field disabledWhenLoading boolean? Default true.

---`AsyncButton "Title" { action = fn }`: the action runs as a task; the button is disabled while it runs.
---@param title string
---@return fun(spec: AsyncButtonSpec): AsyncButtonNode
function AsyncButton(title) end

---@class TextFieldSpec: NodeSpec
---@field text Binding
---@field onEditingChanged fun(editing: boolean)?
---@field onCommit fun()?

---`TextField "Label" { text = binding }`.
---@param label string
---@return fun(spec: TextFieldSpec): TextFieldNode
---@overload fun(spec: TextFieldSpec): TextFieldNode
function TextField(label) end

---@class SecureFieldSpec: NodeSpec
---@field text Binding
---@field onCommit fun()?

---`SecureField "Label" { text = binding }` (no `onEditingChanged`).
---@param label string
---@return fun(spec: SecureFieldSpec): SecureFieldNode
---@overload fun(spec: SecureFieldSpec): SecureFieldNode
function SecureField(label) end

---@class SliderSpec: NodeSpec
---@field value Binding
---@field range number[]? `{lo, hi}`
---@field step number?
---@field onEditingChanged fun(editing: boolean)?

---`Slider { value = binding, range = {0, 1}, step = 0.1 }` or `Slider "Label" { … }`.
---@param spec SliderSpec
---@return SliderNode
---@overload fun(label: string): fun(spec: SliderSpec): SliderNode
function Slider(spec) end

---@class StepperSpec: NodeSpec
---@field value Binding?
---@field range number[]?
---@field step number?
---@field onEditingChanged fun(editing: boolean)?
---@field onIncrement fun()|false|nil Free form: both keys required, `false` means none.
---@field onDecrement fun()|false|nil

---`Stepper "Label" { value = binding, range = {0, 10}, step = 1 }` (or free form with `onIncrement`/`onDecrement`).
---@param label string
---@return fun(spec: StepperSpec): StepperNode
---@overload fun(spec: StepperSpec): StepperNode
function Stepper(label) end

---@class ToggleSpec: NodeSpec
---@field isOn Binding

---`Toggle "Label" { isOn = binding }`.
---@param label string
---@return fun(spec: ToggleSpec): ToggleNode
---@overload fun(spec: ToggleSpec): ToggleNode
function Toggle(label) end

---@class SegmentedControlSpec: NodeSpec
---@field segments { title: string, action: fun()? }[]

---`SegmentedControl { segments = { { title = "A", action = fn }, … } }` or `SegmentedControl "Title" { … }`.
---@param spec SegmentedControlSpec
---@return SegmentedControlNode
---@overload fun(title: string): fun(spec: SegmentedControlSpec): SegmentedControlNode
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

---Begins editing (ending it on the field that had focus).
---@param node Node
function focus(node) end

---Ends editing; nothing when not editing.
---@param node Node
function blur(node) end

---Clamped, stepped; editing true → value → false. Returns the value set.
---@param node Node
---@param value number
---@return number
function slide(node, value) end

---Steps a Stepper up (through its binding, within the range) or runs its `onIncrement`.
---@param node Node
function increment(node) end

---Steps a Stepper down (through its binding, within the range) or runs its `onDecrement`.
---@param node Node
function decrement(node) end

---Flips a Toggle's `isOn` through its binding (valueChanged); returns the new value.
---@param node Node
---@return boolean?
function toggle(node) end

---Selects segment `index` (1-based); when it was not selected, its action runs, then valueChanged.
---@param node Node
---@param index integer
function selectSegment(node, index) end

---Fires every handler registered on `control` for `event`, in order; returns how many ran, or
---false when the control is disabled (nothing runs).
---@param control Node
---@param event ControlEvent
---@return integer|false
function sendActions(control, event) end

---Posts a notification to the `onReceive` handlers of mounted nodes (with `{ object = x }`, only
---those registered without an object or with that one); returns how many ran.
---@param name string
---@param payload any
---@param options { object: any }?
---@return integer
function post(name, payload, options) end

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

-- the pattern kit's names, as the globals of the same name
responder.State = State
responder.Binding = Binding
responder.Button = Button
responder.TextField = TextField
responder.SecureField = SecureField
responder.Slider = Slider
responder.Stepper = Stepper
responder.Toggle = Toggle
responder.SegmentedControl = SegmentedControl
responder.typeText = typeText
responder.commit = commit
responder.focus = focus
responder.blur = blur
responder.slide = slide
responder.increment = increment
responder.decrement = decrement
responder.toggle = toggle
responder.selectSegment = selectSegment
responder.sendActions = sendActions
responder.Preference = Preference
responder.post = post
responder.AsyncButton = AsyncButton
responder.sleep = sleep
responder.advance = advance
responder.now = now
responder.after = after
responder.every = every
responder.task = task
responder.explore = explore

---The mounted root, if any.
---@return Node?
function mounted() end
responder.mounted = mounted

---The last top-level action's trace.
---@return Trace?
function lastTrace() end
responder.lastTrace = lastTrace

---The recorded safety warnings (relaxed level).
---@return Warning[]
function warnings() end
responder.warnings = warnings

---Empties `responder.warnings()`.
function clearWarnings() end
responder.clearWarnings = clearWarnings

---The presented alert, or nil.
---@return Alert?
function alert() end
responder.alert = alert

---Dismisses the presented alert.
function dismissAlert() end
responder.dismissAlert = dismissAlert

---Clears the mounted tree, warnings, alert, traces and clock.
function reset() end
responder.reset = reset

-----------------------------------------------------------------------------------------------
-- §3 `responder test`: the busted-compatible subset and the responder assertions
-----------------------------------------------------------------------------------------------

-----------------------------------------------------------------------------------------------
-- §3.5 `explore`: steering `responder explore` from a script
-----------------------------------------------------------------------------------------------

---Registrations for `responder explore`; under `run` and `test` they are kept but inert, and
---`check`, `perform`, `noLuaError`, `tasks` and `scenario` serve the specs explore writes.
---@class explore
explore = {}

---What a custom action draws from; each value is recorded so that `explore.perform` replays it.
---@class ExploreDraw
---@field int fun(lo: integer, hi: integer): integer An integer in `[lo, hi]`.
---@field pick fun(list: any[]): any An item of the non-empty list.
---@field text fun(): string One of the input texts.

---A custom action (names are unique).
---@param name string
---@param fn fun(root: Node, draw: ExploreDraw)
---@param options { weight: number?, when: (fun(root: Node): boolean)? }? `weight` > 0 (default 1); `when` gates it.
function explore.action(name, fn, options) end

---Texts typed into the matching fields (default: `""`, `"a"`, 64 × `"x"`, `"é🙂"`, `" "`).
---@param selector string `Name`, `#id` or `Name#id`.
---@param list string[]
function explore.inputs(selector, list) end

---Checked after every action: true holds; `false`/`nil` (+ a message) or an error fails.
---@param name string
---@param fn fun(root: Node): boolean?, string?
function explore.invariant(name, fn) end

---The matching nodes and their subtrees are never acted on.
---@param selector string `Name`, `#id` or `Name#id`.
function explore.ignore(selector) end

---Checks the invariant `name` (every invariant without one) on the mounted tree; raises when one fails.
---@param name string?
---@return true
function explore.check(name) end

---Runs the custom action `name` on the mounted root, drawing the values given.
---@param name string
---@param args any[]? The drawn values, in order.
---@return any
function explore.perform(name, args) end

---The running tasks (AsyncButton actions, …), oldest first.
---@return Task[]
function explore.tasks() end

---Runs `fn`; raises when a `LuaError` was reported meanwhile.
---@param fn fun()
---@return true
function explore.noLuaError(fn) end

---Runs the scenario script at `path` (relative to the spec) and returns its mounted root.
---@param path string
---@param options { seed: integer? }?
---@return Node
function explore.scenario(path, options) end

-----------------------------------------------------------------------------------------------
-- §3 `responder test`: the busted-compatible subset and the responder assertions
-----------------------------------------------------------------------------------------------

---A block of tests (and nested blocks); its body runs when reached.
---@param name string
---@param fn fun()
function describe(name, fn) end

---`describe` under another name.
---@param name string
---@param fn fun()
function context(name, fn) end

---A `describe` whose global writes are undone when it ends.
---@param name string
---@param fn fun()
function insulate(name, fn) end

---A `describe` whose global writes stay visible to the blocks after it.
---@param name string
---@param fn fun()
function expose(name, fn) end

---A test; each runs in a fresh world (`responder.reset()` first).
---@param name string
---@param fn fun()
function it(name, fn) end

---`it` under another name.
---@param name string
---@param fn fun()
function spec(name, fn) end

---`it` under another name.
---@param name string
---@param fn fun()
function test(name, fn) end

---A test that is skipped (reported as pending); inside a test, marks it pending and stops it.
---@param name string
---@param fn fun()?
function pending(name, fn) end

---Runs before each test of the block.
---@param fn fun()
function before_each(fn) end

---Runs after each test of the block.
---@param fn fun()
function after_each(fn) end

---Runs once before the block's tests (`strict_setup`, or `lazy_setup` with `--lazy`).
---@param fn fun()
function setup(fn) end

---Runs once after the block's tests (`strict_teardown`, or `lazy_teardown` with `--lazy`).
---@param fn fun()
function teardown(fn) end

---Runs once before the block's first test, even when the block has none.
---@param fn fun()
function strict_setup(fn) end

---Runs once after the block's tests, even when the block has none.
---@param fn fun()
function strict_teardown(fn) end

---Runs once before the block's first test that runs (not at all when none does).
---@param fn fun()
function lazy_setup(fn) end

---Runs once after the block's tests when its `lazy_setup` ran.
---@param fn fun()
function lazy_teardown(fn) end

---Inside a test: `fn` runs when the test ends, passed or failed.
---@param fn fun()
function finally(fn) end

---Inside a block: runs its tests in random order (`randomize(false)` turns it off; a number seeds it).
---@param enabled boolean|number?
---@param seed number?
function randomize(enabled, seed) end

---A spy: callable; records calls and returns.
---@class Spy
---@field calls table[] The arguments of each call (`{ n = …, … }`).
---@field returnvals table[] The results of each call.
---@operator call(...): any
local Spy = {}

---Forgets the recorded calls.
---@return Spy
function Spy:clear() end

---Puts back what `spy.on`/`stub` replaced.
function Spy:revert() end

---Whether it was called (`times` times, when given).
---@param times integer?
---@return boolean
function Spy:called(times) end

---Whether a call had these arguments (matchers allowed).
---@param args table
---@return boolean
function Spy:called_with(args) end

---Whether a call returned these values (matchers allowed).
---@param args table
---@return boolean
function Spy:returned_with(args) end

---A stub: a spy that replaced a table's field and returns what it is told.
---@class Stub: Spy
---@field returns fun(...): Stub Returns these values from now on.
---@field invokes fun(fn: function): Stub Calls `fn` from now on.
---@field on_call_with fun(...): { returns: fun(...): Stub, invokes: fun(fn: function): Stub } For calls with these arguments.
---@field by_default { returns: fun(...): Stub, invokes: fun(fn: function): Stub }

---Spies (luassert).
---@class spy
spy = {}

---A spy calling `fn` (if any).
---@param fn function?
---@return Spy
function spy.new(fn) end

---Replaces `tbl[name]` with a spy calling the original.
---@param tbl table
---@param name string
---@return Spy
function spy.on(tbl, name) end

---Whether `v` is a spy.
---@param v any
---@return boolean
function spy.is_spy(v) end

---Stubs (luassert): `stub(tbl, name, ...)` is `stub.new(tbl, name, ...)`.
---@class stub
---@operator call(table, string, ...): Stub
stub = {}

---Replaces `tbl[name]` with a stub returning `...` (nothing when none are given).
---@param tbl table
---@param name string
---@param ... any
---@return Stub
function stub.new(tbl, name, ...) end

---Mocks (luassert): `mock(tbl, dostub)` is `mock.new(tbl, dostub)`.
---@class mock
---@operator call(table, boolean?): table
mock = {}

---Wraps every function of `tbl` (deeply) in a spy, or a stub when `dostub`; returns `tbl`.
---@param tbl table
---@param dostub boolean?
---@return table
function mock.new(tbl, dostub) end

---Clears the recorded calls of every spy in `tbl`.
---@param tbl table
---@return table
function mock.clear(tbl) end

---Puts back what the mock replaced in `tbl`.
---@param tbl table
---@return table
function mock.revert(tbl) end

---Argument matchers for `called_with`/`returned_with`/`on_call_with`: `match.is_string()`,
---`match.is_not_nil()`, `match.same(t)`, `match._` (anything), … (words as for `assert`).
---@class match
---@field _ any Matches any value.
---@field [string] fun(...): any
match = {}

---Modifiers and assertions, chained: `assert.are.equal`, `assert.is_not.nil`, `assert.has_no.errors`,
---`assert.spy(s).was.called_with(1)`, `assert.message("why").is_true(x)`, …
---@class AssertChain
---@field is AssertChain
---@field are AssertChain
---@field was AssertChain
---@field has AssertChain
---@field does AssertChain
---@field no AssertChain
---@field ["not"] AssertChain
---@field is_not AssertChain
---@field are_not AssertChain
---@field was_not AssertChain
---@field has_no AssertChain
---@field does_not AssertChain
---@field message fun(message: string): AssertChain Sets the failure message.
---@field array fun(t: table): AssertChain Then `.has.no.holes([length])`.
---@field spy fun(s: Spy): AssertChain Then `.was.called(…)`, `.was.called_with(…)`, …
---@field stub fun(s: Stub): AssertChain Then `.was.called(…)`, …
---@field equal fun(expected: any, actual: any, message: string?) `==`.
---@field equals fun(expected: any, actual: any, message: string?) `==`.
---@field same fun(expected: any, actual: any, message: string?) Deep comparison; failures show a −/+ diff.
---@field truthy fun(value: any, message: string?) Not `false` and not `nil`.
---@field falsy fun(value: any, message: string?) `false` or `nil`.
---@field ["true"] fun(value: any, message: string?) `== true`.
---@field ["false"] fun(value: any, message: string?) `== false`.
---@field ["nil"] fun(value: any, message: string?) `== nil`.
---@field boolean fun(value: any, message: string?) Of type boolean.
---@field number fun(value: any, message: string?) Of type number.
---@field string fun(value: any, message: string?) Of type string.
---@field table fun(value: any, message: string?) Of type table.
---@field ["function"] fun(value: any, message: string?) Of type function.
---@field userdata fun(value: any, message: string?) Of type userdata.
---@field thread fun(value: any, message: string?) Of type thread.
---@field error fun(fn: fun(), expected: any?, message: string?) `fn` raises (the value `expected`, when given).
---@field errors fun(fn: fun(), expected: any?, message: string?) `fn` raises (the value `expected`, when given).
---@field error_matches fun(fn: fun(), pattern: string, init: integer?, plain: boolean?, message: string?) `fn` raises a message matching the pattern.
---@field error_match fun(fn: fun(), pattern: string, init: integer?, plain: boolean?, message: string?) `error_matches`.
---@field matches_error fun(fn: fun(), pattern: string, init: integer?, plain: boolean?, message: string?) `error_matches`.
---@field match_error fun(fn: fun(), pattern: string, init: integer?, plain: boolean?, message: string?) `error_matches`.
---@field matches fun(pattern: string, actual: any, init: integer?, plain: boolean?, message: string?) `tostring(actual)` matches the Lua pattern.
---@field match fun(pattern: string, actual: any, init: integer?, plain: boolean?, message: string?) `matches`.
---@field near fun(expected: number, actual: number, tolerance: number, message: string?) `|expected - actual| <= tolerance`.
---@field unique fun(list: table, deep: boolean?, message: string?) No two items are equal (deeply, when `deep`).
---@field returned_arguments fun(n: integer, ...) `select("#", ...) == n`.
---@field holes fun(length: integer?) After `assert.array(t)`: nils inside the array part.
---@field called fun(times: integer?) After `assert.spy(s)`: called (`times` times).
---@field called_with fun(...) After `assert.spy(s)`: some call had these arguments.
---@field returned_with fun(...) After `assert.spy(s)`: some call returned these values.
---@field called_at_least fun(times: integer) After `assert.spy(s)`.
---@field called_at_most fun(times: integer) After `assert.spy(s)`.
---@field called_more_than fun(times: integer) After `assert.spy(s)`.
---@field called_less_than fun(times: integer) After `assert.spy(s)`.
---@field handled fun(outcome: Outcome, node: Node|string?) See `assert.handled`.
---@field unhandled fun(outcome: Outcome) See `assert.unhandled`.
---@field trace fun(traceOrOutcome: Trace|Outcome, expected: string|string[]) See `assert.trace`.
---@field warns fun(kind: WarningKind, fn: fun()) See `assert.warns`.
---@field no_warnings fun(fn: fun()?) See `assert.no_warnings`.
---@field snapshot fun(name: string, text: string) See `assert.snapshot`.
---@field is_true fun(value: any, message: string?)
---@field is_false fun(value: any, message: string?)
---@field is_nil fun(value: any, message: string?)
---@field is_not_nil fun(value: any, message: string?)
---@field is_not_true fun(value: any, message: string?)
---@field is_not_false fun(value: any, message: string?)
---@field is_truthy fun(value: any, message: string?)
---@field is_falsy fun(value: any, message: string?)
---@field is_boolean fun(value: any, message: string?)
---@field is_number fun(value: any, message: string?)
---@field is_string fun(value: any, message: string?)
---@field is_table fun(value: any, message: string?)
---@field is_function fun(value: any, message: string?)
---@field is_userdata fun(value: any, message: string?)
---@field is_thread fun(value: any, message: string?)
---@field are_equal fun(expected: any, actual: any, message: string?)
---@field are_not_equal fun(expected: any, actual: any, message: string?)
---@field are_same fun(expected: any, actual: any, message: string?)
---@field are_not_same fun(expected: any, actual: any, message: string?)
---@field is_near fun(expected: number, actual: number, tolerance: number, message: string?)
---@field has_error fun(fn: fun(), expected: any?, message: string?)
---@field has_no_error fun(fn: fun(), message: string?)
---@field has_errors fun(fn: fun(), expected: any?, message: string?)
---@field has_no_errors fun(fn: fun(), message: string?)
---@field no_error fun(fn: fun(), message: string?)
---@field no_errors fun(fn: fun(), message: string?)

---luassert's `assert`: `assert(v, message)` as Lua's, plus the chains of `AssertChain` and the
---responder assertions.
---@class assert: AssertChain
---@operator call(any, string?): any
assert = {}

---Registers an assertion, modifier or matcher: `assert:register("assertion", name, fn, positive, negative)`.
---@param namespace "assertion"|"modifier"|"matcher"
---@param name string
---@param callback function
---@param positive string? The `say` key of the failure message.
---@param negative string? The `say` key of the negated failure message.
function assert:register(namespace, name, callback, positive, negative) end

---Removes a registered assertion, modifier or matcher.
---@param namespace "assertion"|"modifier"|"matcher"
---@param name string
function assert:unregister(namespace, name) end

---Adds a formatter for failure messages (`fn(value) -> string?`).
---@param fn fun(value: any): string?
function assert:add_formatter(fn) end

---Removes a formatter.
---@param fn fun(value: any): string?
function assert:remove_formatter(fn) end

---Formats the arguments of a failure message in place and returns them.
---@param args table
---@return table
function assert:format(args) end

---Sets a luassert parameter (e.g. `TableFormatLevel`).
---@param name string
---@param value any
function assert:set_parameter(name, value) end

---The value of a luassert parameter.
---@param name string
---@return any
function assert:get_parameter(name) end

---Tracks a spy so that `assert:snapshot():revert()` reverts it.
---@param s Spy
function assert:add_spy(s) end

---An error level for `error`-style reporting of failures in helpers.
---@param level integer
---@return table
function assert:level(level) end

---The level of a value from `assert:level`, nil for anything else.
---@param level any
---@return integer?
function assert:get_level(level) end

---A fresh assertion state (modifiers apply to it).
---@return AssertChain
function assert.state() end

---Compares the values deeply.
---@param expected any
---@param actual any
---@param message string?
function assert.same(expected, actual, message) end

---`fn` raises (the value or message `expected`, when given).
---@param fn fun()
---@param expected any?
---@param message string?
function assert.has_error(fn, expected, message) end

---`fn` raises a message matching the Lua pattern.
---@param fn fun()
---@param pattern string
---@param message string?
function assert.error_matches(fn, pattern, message) end

---Starts a spy assertion: `assert.spy(s).was.called(2)`, `assert.spy(s).was_not.called_with(1)`.
---@param s Spy
---@return AssertChain
function assert.spy(s) end

---The outcome was handled (by `node`, a node or a selector, when given).
---@param outcome Outcome
---@param node Node|string?
function assert.handled(outcome, node) end

---The outcome was not handled.
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

---`fn` records no warning (without `fn`: none was recorded in this test so far).
---@param fn fun()?
function assert.no_warnings(fn) end

---Compares `text` with the stored snapshot `name` (`--update-snapshots` rewrites it).
---`assert:snapshot()` is luassert's state snapshot instead: `:revert()` undoes later spies and parameters.
---@param name string
---@param text string
---@overload fun(self: assert): { revert: fun() }
function assert.snapshot(name, text) end
