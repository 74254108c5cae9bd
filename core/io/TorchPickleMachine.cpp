// The opcode interpreter of the pickle machine (protocols 0-5): reading the
// opcodes' arguments, the stack, its marks and the memo.
#include "TorchPickleImpl.h"

#include <cstring>
#include <iterator>
#include <utility>

namespace fusebox::torch_pickle {

Machine::~Machine()
{
    m_stack.clear();
    m_memo.clear();
    for (const std::weak_ptr<PyObj> &weak : m_containers)
        if (Ref value = weak.lock()) {
            std::vector<Ref> children;
            value->moveChildren(children); // freed here, or by their own cycle's turn
        }
}

void Machine::push(Ref value)
{
    if (value
        && (value->kind == Kind::Tuple || value->kind == Kind::List || value->kind == Kind::Dict
            || value->kind == Kind::Set || value->kind == Kind::Object))
        m_containers.push_back(value);
    m_stack.push_back(std::move(value));
}

Ref Machine::run()
{
    while (true) {
        m_opAt = m_pos;
        const uint8_t op = byte();
        switch (op) {
        case 0x80: byte(); break;  // PROTO
        case 0x95: take(8); break; // FRAME
        case '.':                  // STOP
            if (m_stack.empty())
                fail("STOP with an empty stack");
            return m_stack.back();
        case '(': m_marks.push_back(m_stack.size()); break;
        case '0': // POP
            if (!m_marks.empty() && m_marks.back() == m_stack.size())
                m_marks.pop_back();
            else
                pop();
            break;
        case '1': popMark(); break;   // POP_MARK
        case '2': push(top()); break; // DUP
        default:
            if (!pushValue(op) && !buildContainer(op) && !makeObject(op) && !useMemo(op)) {
                static const char *kHex = "0123456789abcdef";
                fail(std::string("unsupported pickle opcode 0x") + kHex[op >> 4] + kHex[op & 15]);
            }
        }
    }
}

/// None, booleans, numbers, strings and bytes; false for another opcode.
bool Machine::pushValue(uint8_t op)
{
    switch (op) {
    case 'N': push(make(Kind::None)); break;
    case 0x88: push(makeBool(true)); break;
    case 0x89: push(makeBool(false)); break;
    case 'I': pushTextInt(line()); break;
    case 'J': push(makeInt(static_cast<int32_t>(littleEndian(4)))); break;
    case 'K': push(makeInt(static_cast<int64_t>(littleEndian(1)))); break;
    case 'M': push(makeInt(static_cast<int64_t>(littleEndian(2)))); break;
    case 'L': pushTextLong(line()); break;
    case 0x8a: pushLong(littleEndian(1)); break; // LONG1
    case 0x8b: pushLong(littleEndian(4)); break; // LONG4
    case 'F': pushTextFloat(line()); break;
    case 'G': pushBinFloat(); break;
    case 'S': push(makeStr(Kind::Str, unquote(line()))); break;          // STRING
    case 'T': push(makeStr(Kind::Str, take(littleEndian(4)))); break;    // BINSTRING
    case 'U': push(makeStr(Kind::Str, take(littleEndian(1)))); break;    // SHORT_BINSTRING
    case 'V': push(makeStr(Kind::Str, line())); break;                   // UNICODE (raw-unicode-escape; escapes kept)
    case 'X': push(makeStr(Kind::Str, take(littleEndian(4)))); break;    // BINUNICODE
    case 0x8c: push(makeStr(Kind::Str, take(littleEndian(1)))); break;   // SHORT_BINUNICODE
    case 0x8d: push(makeStr(Kind::Str, take(littleEndian(8)))); break;   // BINUNICODE8
    case 'B': push(makeStr(Kind::Bytes, take(littleEndian(4)))); break;  // BINBYTES
    case 'C': push(makeStr(Kind::Bytes, take(littleEndian(1)))); break;  // SHORT_BINBYTES
    case 0x8e: push(makeStr(Kind::Bytes, take(littleEndian(8)))); break; // BINBYTES8
    case 0x96: push(makeStr(Kind::Bytes, take(littleEndian(8)))); break; // BYTEARRAY8
    default: return false;
    }
    return true;
}

/// Tuples, lists, dicts and sets, and what adds to them; false for another opcode.
bool Machine::buildContainer(uint8_t op)
{
    switch (op) {
    case ')': push(make(Kind::Tuple)); break;
    case 't': push(sequence(Kind::Tuple, popMark())); break;
    case 0x85: push(sequence(Kind::Tuple, popN(1))); break;
    case 0x86: push(sequence(Kind::Tuple, popN(2))); break;
    case 0x87: push(sequence(Kind::Tuple, popN(3))); break;
    case ']': push(make(Kind::List)); break;
    case 'l': push(sequence(Kind::List, popMark())); break;
    case 'a': { // APPEND
        Ref item = pop();
        extend(top(), {item});
        break;
    }
    case 'e': { // APPENDS
        auto items = popMark();
        extend(top(), std::move(items));
        break;
    }
    case '}': push(make(Kind::Dict)); break;
    case 'd': push(dict(popMark())); break;
    case 's': { // SETITEM
        Ref value = pop();
        Ref key = pop();
        setItems(top(), {key, value});
        break;
    }
    case 'u': { // SETITEMS
        auto items = popMark();
        setItems(top(), std::move(items));
        break;
    }
    case 0x8f: push(make(Kind::Set)); break; // EMPTY_SET
    case 0x90: {                             // ADDITEMS
        auto items = popMark();
        extend(top(), std::move(items));
        break;
    }
    case 0x91: push(sequence(Kind::Set, popMark())); break; // FROZENSET
    default: return false;
    }
    return true;
}

/// Globals, calls, objects, their state and persistent ids; false for another opcode.
bool Machine::makeObject(uint8_t op)
{
    switch (op) {
    case 'c': { // GLOBAL
        std::string module = line();
        std::string name = line();
        push(global(module, name));
        break;
    }
    case 0x93: { // STACK_GLOBAL
        Ref name = pop();
        Ref module = pop();
        if (name->kind != Kind::Str || module->kind != Kind::Str)
            fail("STACK_GLOBAL expects two strings");
        push(global(module->text, name->text));
        break;
    }
    case 'R': { // REDUCE
        Ref args = pop();
        Ref callable = pop();
        push(apply(callable, args));
        break;
    }
    case 0x81: { // NEWOBJ
        Ref args = pop();
        Ref cls = pop();
        push(object(cls, args));
        break;
    }
    case 0x92: { // NEWOBJ_EX
        pop();   // kwargs
        Ref args = pop();
        Ref cls = pop();
        push(object(cls, args));
        break;
    }
    case 'o': { // OBJ
        auto items = popMark();
        if (items.empty())
            fail("OBJ without a class");
        Ref cls = items.front();
        items.erase(items.begin());
        push(object(cls, sequence(Kind::Tuple, std::move(items))));
        break;
    }
    case 'i': { // INST
        std::string module = line();
        std::string name = line();
        push(object(global(module, name), sequence(Kind::Tuple, popMark())));
        break;
    }
    case 'b': pop(); break; // BUILD: the state of tensors, dicts and objects is not needed
    case 'P': push(persistent(makeStr(Kind::Str, line()))); break; // PERSID
    case 'Q': push(persistent(pop())); break;                      // BINPERSID
    default: return false;
    }
    return true;
}

/// The memo: PUT, MEMOIZE and GET in their forms; false for another opcode.
bool Machine::useMemo(uint8_t op)
{
    switch (op) {
    case 'p': memoPut(parseInt(line())); break; // PUT
    case 'q': memoPut(static_cast<int64_t>(littleEndian(1))); break;
    case 'r': memoPut(static_cast<int64_t>(littleEndian(4))); break;
    case 0x94: memoPut(static_cast<int64_t>(m_memo.size())); break; // MEMOIZE
    case 'g': memoGet(parseInt(line())); break;                     // GET
    case 'h': memoGet(static_cast<int64_t>(littleEndian(1))); break;
    case 'j': memoGet(static_cast<int64_t>(littleEndian(4))); break;
    default: return false;
    }
    return true;
}

uint8_t Machine::byte()
{
    if (m_pos >= m_bytes.size())
        fail("the pickle ends without STOP");
    return static_cast<uint8_t>(m_bytes[m_pos++]);
}

std::string Machine::take(uint64_t count)
{
    if (count > m_bytes.size() - m_pos)
        fail("a length of " + std::to_string(count) + " bytes runs past the end of the pickle");
    std::string out = m_bytes.substr(m_pos, static_cast<size_t>(count));
    m_pos += static_cast<size_t>(count);
    return out;
}

uint64_t Machine::littleEndian(int count)
{
    const std::string raw = take(static_cast<uint64_t>(count));
    uint64_t value = 0;
    for (int i = count; i-- > 0;)
        value = (value << 8) | static_cast<uint8_t>(raw[static_cast<size_t>(i)]);
    return value;
}

std::string Machine::line()
{
    const size_t end = m_bytes.find('\n', m_pos);
    if (end == std::string::npos)
        fail("a text argument without its newline");
    std::string out = m_bytes.substr(m_pos, end - m_pos);
    m_pos = end + 1;
    if (!out.empty() && out.back() == '\r')
        out.pop_back();
    return out;
}

int64_t Machine::parseInt(const std::string &text) const
{
    if (text.empty() || text.size() > 19)
        fail("not an integer: '" + printable(text) + "'");
    size_t k = text[0] == '-' || text[0] == '+' ? 1 : 0;
    if (k == text.size())
        fail("not an integer: '" + printable(text) + "'");
    int64_t value = 0;
    for (; k < text.size(); ++k) {
        if (text[k] < '0' || text[k] > '9')
            fail("not an integer: '" + printable(text) + "'");
        value = value * 10 + (text[k] - '0');
    }
    return text[0] == '-' ? -value : value;
}

Ref Machine::makeBool(bool value)
{
    Ref r = make(Kind::Bool);
    r->integer = value ? 1 : 0;
    return r;
}

void Machine::pushTextInt(const std::string &text)
{
    if (text == "00" || text == "01")
        push(makeBool(text == "01"));
    else
        push(makeInt(parseInt(text)));
}

void Machine::pushTextLong(std::string text)
{
    if (!text.empty() && text.back() == 'L')
        text.pop_back();
    if (text.size() > 18)
        push(make(Kind::BigInt));
    else
        push(makeInt(parseInt(text)));
}

void Machine::pushLong(uint64_t count)
{
    const std::string raw = take(count);
    if (raw.size() > 8) {
        push(make(Kind::BigInt));
        return;
    }
    uint64_t value = 0;
    for (size_t i = raw.size(); i-- > 0;)
        value = (value << 8) | static_cast<uint8_t>(raw[i]);
    if (!raw.empty() && raw.size() < 8 && (static_cast<uint8_t>(raw.back()) & 0x80))
        value |= ~uint64_t(0) << (8 * raw.size()); // sign-extend
    push(makeInt(static_cast<int64_t>(value)));
}

void Machine::pushTextFloat(const std::string &text)
{
    Ref r = make(Kind::Float);
    try {
        r->real = std::stod(text);
    } catch (...) {
        fail("not a float: '" + printable(text) + "'");
    }
    push(r);
}

void Machine::pushBinFloat()
{
    const std::string raw = take(8);
    uint64_t bits = 0;
    for (char c : raw)
        bits = (bits << 8) | static_cast<uint8_t>(c); // big-endian
    Ref r = make(Kind::Float);
    std::memcpy(&r->real, &bits, sizeof bits);
    push(r);
}

std::string Machine::unquote(std::string text)
{
    if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
        return text.substr(1, text.size() - 2);
    return text;
}

Ref Machine::pop()
{
    if (m_stack.empty() || (!m_marks.empty() && m_marks.back() == m_stack.size()))
        fail("the stack is empty");
    Ref value = std::move(m_stack.back());
    m_stack.pop_back();
    return value;
}

const Ref &Machine::top() const
{
    if (m_stack.empty() || (!m_marks.empty() && m_marks.back() == m_stack.size()))
        fail("the stack is empty");
    return m_stack.back();
}

std::vector<Ref> Machine::popN(size_t n)
{
    std::vector<Ref> items(n);
    for (size_t i = n; i-- > 0;)
        items[i] = pop();
    return items;
}

std::vector<Ref> Machine::popMark()
{
    if (m_marks.empty())
        fail("no MARK to pop to");
    const size_t at = m_marks.back();
    m_marks.pop_back();
    std::vector<Ref> items(std::make_move_iterator(m_stack.begin() + static_cast<std::ptrdiff_t>(at)),
                           std::make_move_iterator(m_stack.end()));
    m_stack.resize(at);
    return items;
}

Ref Machine::sequence(Kind kind, std::vector<Ref> items)
{
    Ref r = make(kind);
    r->items = std::move(items);
    return r;
}

Ref Machine::dict(std::vector<Ref> items)
{
    if (items.size() % 2)
        fail("a dict with an odd number of keys and values");
    return sequence(Kind::Dict, std::move(items));
}

void Machine::extend(const Ref &target, std::vector<Ref> items)
{
    if (target->kind == Kind::List || target->kind == Kind::Set)
        for (Ref &item : items)
            target->items.push_back(std::move(item));
    else if (target->kind != Kind::Object)
        fail("APPEND to " + describe(target));
}

void Machine::setItems(const Ref &target, std::vector<Ref> items)
{
    if (items.size() % 2)
        fail("SETITEMS with an odd number of keys and values");
    if (target->kind == Kind::Dict)
        for (Ref &item : items)
            target->items.push_back(std::move(item));
    else if (target->kind != Kind::Object)
        fail("SETITEM on " + describe(target));
}

void Machine::memoPut(int64_t index)
{
    if (index < 0)
        fail("a negative memo index");
    m_memo[index] = top();
}

void Machine::memoGet(int64_t index)
{
    auto it = m_memo.find(index);
    if (it == m_memo.end())
        fail("memo entry " + std::to_string(index) + " was never stored");
    push(it->second);
}

} // namespace fusebox::torch_pickle
